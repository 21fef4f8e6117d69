import type { JsonValue } from '../core/json.js';
import type { TreeCommitEvent } from '../core/realtime/commit-event.js';
import { updateMessage } from '../core/realtime/messages.js';

/**
 * One commit on its way to the sessions concerned. Within a commit a message path determines its
 * value, so each distinct `update` is serialized and UTF-8 encoded once however many connections
 * receive it.
 */
export class CommitBroadcast {
  private readonly messages = new Map<string, Buffer>();

  constructor(readonly event: TreeCommitEvent) {}

  /** The project version of the commit. */
  get version(): number {
    return this.event.version;
  }

  /** The `update` text for `path` as UTF-8 bytes, built on first use. */
  message(path: string, value: JsonValue): Buffer {
    let bytes = this.messages.get(path);
    if (bytes === undefined) {
      bytes = Buffer.from(updateMessage(path, value, this.event.version));
      this.messages.set(path, bytes);
    }
    return bytes;
  }
}
