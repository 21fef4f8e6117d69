import { updateMessageOfJson } from '../core/realtime/messages.js';
import type { WriteRelation } from '../core/realtime/subscription-index.js';
import { relativeSegments } from '../core/realtime/tree-path.js';
import type { TreeChange, TreeCommit } from '../core/realtime/tree-store.js';
import { changeJson, valueAt } from '../core/realtime/tree-value.js';

/** One `update` message of a commit, ready for any number of sockets. */
export interface UpdateFrame {
  /** The message's path: within a commit it determines the message. */
  path: string;
  /** The message as a whole WebSocket text frame (header and UTF-8 payload). */
  wire: Buffer;
  /** Its UTF-8 payload alone (a view into `wire`). */
  payload: Buffer;
}

/**
 * A server's unmasked, unfragmented text frame (RFC 6455 §5.2) around `payload`: the bytes `ws`
 * writes for `send(text)` without compression, built once for every receiver of a message.
 */
export function textFrame(payload: Buffer): Buffer {
  const length = payload.length;
  const headerLength = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerLength + length);
  frame[0] = 0x81; // FIN, opcode 1 (text)
  if (length < 126) frame[1] = length;
  else if (length < 65_536) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  payload.copy(frame, headerLength);
  return frame;
}

/**
 * One commit on its way to the sessions concerned. Within a commit a message path determines its
 * value, so each distinct `update` is built, UTF-8 encoded and framed once however many
 * connections receive it, around the value's JSON text the engine already made when the update
 * carries the written value itself.
 */
export class CommitBroadcast {
  private readonly frames = new Map<string, UpdateFrame>();

  constructor(readonly commit: TreeCommit) {}

  /** The project version of the commit. */
  get version(): number {
    return this.commit.version;
  }

  /**
   * The update a subscription at `subscribed` receives for `change` (§4), `relation` being how the
   * written path relates to it (the subscription index tells): a write at or below it sends the
   * written path and value, a write above it the subscribed path and the new value there.
   */
  update(subscribed: string, change: TreeChange, relation: WriteRelation): UpdateFrame {
    const below = relation === 'at-or-below';
    const path = below ? change.path : subscribed;
    let frame = this.frames.get(path);
    if (frame === undefined) {
      const json = below
        ? changeJson(change)
        : JSON.stringify(valueAt(change.value, relativeSegments(subscribed, change.path)));
      const payload = Buffer.from(updateMessageOfJson(path, json, this.commit.version));
      const wire = textFrame(payload);
      frame = { path, wire, payload: wire.subarray(wire.length - payload.length) };
      this.frames.set(path, frame);
    }
    return frame;
  }
}
