import { describe, expect, it } from 'vitest';
import { CommitBroadcast } from '../../src/ws/commit-broadcast.js';

describe('CommitBroadcast', () => {
  it('serializes each distinct update of a commit once, whatever the number of receivers', () => {
    const broadcast = new CommitBroadcast({ projectId: 1, version: 9, changes: [{ path: 'a/b', value: { c: 1 } }] });
    const first = broadcast.message('a/b', { c: 1 });
    expect(broadcast.message('a/b', { c: 1 })).toBe(first);
    expect(JSON.parse(first.toString())).toEqual({ event: 'update', path: 'a/b', value: { c: 1 }, version: 9 });
    expect(broadcast.message('a/b/c', 1)).not.toBe(first);
    expect(broadcast.version).toBe(9);
  });
});
