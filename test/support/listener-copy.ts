/** A client's copy of document listeners (§10): snapshots and changes applied as a client would. */
import type { JsonObject } from '../../src/core/json.js';
import type { TestSocket } from './ws-client.js';

export interface ListenerDocument {
  id: string;
  path: string;
  data: JsonObject;
}

interface Change {
  type: 'added' | 'modified' | 'removed';
  document: ListenerDocument;
}

interface ListenerMessage {
  event: string;
  id?: string | number;
  version?: number;
  documents?: ListenerDocument[];
  changes?: Change[];
}

/** Every listener message of `socket` for `id`, applied in order: the client's result, unordered, and its version. */
export function copyOf(
  socket: TestSocket,
  id: string | number,
): { documents: Map<string, ListenerDocument>; version: number } {
  const documents = new Map<string, ListenerDocument>();
  let version = -1;
  for (const raw of socket.messages as unknown as ListenerMessage[]) {
    if (raw.id !== id) continue;
    if (raw.event === 'snapshot') {
      documents.clear();
      for (const document of raw.documents ?? []) documents.set(document.path, document);
      version = raw.version ?? -1;
    } else if (raw.event === 'changes') {
      for (const change of raw.changes ?? []) {
        if (change.type === 'removed') {
          if (!documents.delete(change.document.path)) throw new Error(`removed ${change.document.path} not held`);
        } else {
          const held = documents.has(change.document.path);
          if (change.type === 'added' && held) throw new Error(`added ${change.document.path} already held`);
          if (change.type === 'modified' && !held) throw new Error(`modified ${change.document.path} not held`);
          documents.set(change.document.path, change.document);
        }
      }
      // A rule change re-filters at the version already held (§9): equal is fine, older is not.
      if ((raw.version ?? -1) < version) throw new Error(`changes at ${raw.version} after ${version}`);
      version = raw.version ?? -1;
    }
  }
  return { documents, version };
}

/** The listener messages of `id`, as parsed. */
export function listenerMessages(socket: TestSocket, id: string | number): ListenerMessage[] {
  return (socket.messages as unknown as ListenerMessage[]).filter((m) => m.id === id);
}

/** Paths sorted by code point, as the copy holds them. */
export const sortedPaths = (documents: Map<string, ListenerDocument>) =>
  [...documents.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
