import { describe, expect, it } from 'vitest';
import * as ws from 'ws';
import { CommitBroadcast, textFrame } from '../../src/ws/commit-broadcast.js';

/** `ws`'s own framing of a server text message (untyped in @types/ws). */
const wsFrame = (payload: Buffer): Buffer =>
  Buffer.concat(
    (ws as unknown as { Sender: { frame(data: Buffer, options: object): Buffer[] } }).Sender.frame(payload, {
      fin: true,
      opcode: 1,
      mask: false,
      readOnly: true,
      rsv1: false,
    }),
  );

describe('CommitBroadcast', () => {
  it('builds each distinct update of a commit once, whatever the number of receivers', () => {
    const change = { path: 'a/b', value: { c: { d: 1 } } };
    const broadcast = new CommitBroadcast({ version: 9, changes: [change] });
    const first = broadcast.update('a', change, 'at-or-below');
    expect(broadcast.update('a/b', change, 'at-or-below')).toBe(first);
    expect(JSON.parse(first.payload.toString())).toEqual({
      event: 'update',
      path: 'a/b',
      value: change.value,
      version: 9,
    });
    expect(first.wire).toEqual(wsFrame(first.payload));
    // A subscription below the written path gets its own path and the value there.
    const below = broadcast.update('a/b/c', change, 'above');
    expect(below).not.toBe(first);
    expect(JSON.parse(below.payload.toString())).toEqual({
      event: 'update',
      path: 'a/b/c',
      value: { d: 1 },
      version: 9,
    });
    expect(broadcast.update('a/b/x', change, 'above').payload.toString()).toBe(
      '{"event":"update","path":"a/b/x","value":null,"version":9}',
    );
    expect(broadcast.version).toBe(9);
  });

  it('frames a text message as ws does, at each length encoding', () => {
    for (const length of [0, 1, 125, 126, 65_535, 65_536, 200_000]) {
      const payload = Buffer.alloc(length, 'x');
      expect(textFrame(payload).equals(wsFrame(payload))).toBe(true);
    }
  });
});
