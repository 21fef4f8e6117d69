import { updateMessageOfJson } from '../core/realtime/messages.js';
import type { WriteRelation } from '../core/realtime/subscription-index.js';
import { relativeSegments } from '../core/realtime/tree-path.js';
import type { TreeChange, TreeCommit } from '../core/realtime/tree-store.js';
import { changeJson, valueAt } from '../core/realtime/tree-value.js';

/** One `update` message of a commit, as UTF-8 bytes ready for any number of sockets. */
export interface UpdateFrame {
  /** The message's path: within a commit it determines the message. */
  path: string;
  bytes: Buffer;
}

/**
 * One commit on its way to the sessions concerned. Within a commit a message path determines its
 * value, so each distinct `update` is built and UTF-8 encoded once however many connections
 * receive it, around the value's JSON text the engine already made when the update carries the
 * written value itself.
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
      frame = { path, bytes: Buffer.from(updateMessageOfJson(path, json, this.commit.version)) };
      this.frames.set(path, frame);
    }
    return frame;
  }
}
