import { describe, expect, it } from 'vitest';
import { CommitBroadcast } from '../../src/ws/commit-broadcast.js';

describe('CommitBroadcast', () => {
  it('builds each distinct update of a commit once, whatever the number of receivers', () => {
    const change = { path: 'a/b', value: { c: { d: 1 } } };
    const broadcast = new CommitBroadcast({ version: 9, changes: [change] });
    const first = broadcast.update('a', change, 'at-or-below');
    expect(broadcast.update('a/b', change, 'at-or-below')).toBe(first);
    expect(JSON.parse(first.bytes.toString())).toEqual({
      event: 'update',
      path: 'a/b',
      value: change.value,
      version: 9,
    });
    // A subscription below the written path gets its own path and the value there.
    const below = broadcast.update('a/b/c', change, 'above');
    expect(below).not.toBe(first);
    expect(JSON.parse(below.bytes.toString())).toEqual({ event: 'update', path: 'a/b/c', value: { d: 1 }, version: 9 });
    expect(broadcast.update('a/b/x', change, 'above').bytes.toString()).toBe(
      '{"event":"update","path":"a/b/x","value":null,"version":9}',
    );
    expect(broadcast.version).toBe(9);
  });
});
