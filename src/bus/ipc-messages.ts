/**
 * What the IPC bus (`ipc-bus.ts`, in each worker) and its relay (`ipc-relay.ts`, in the cluster
 * primary) say to each other, and the one-line interface of an ordered message channel between
 * them. Node's IPC channel (`process.send` / `worker.send`) is ordered and loses nothing while
 * connected, which is all the bus needs; other messages on the channel (node:cluster's own)
 * carry no `cdsBus` tag and are ignored.
 */

/** Worker → primary. `sub` and `ping` carry an id the primary answers with `done`. */
export type ToRelay =
  | { cdsBus: 'sub'; id: number; channel: string }
  | { cdsBus: 'unsub'; channel: string }
  | { cdsBus: 'pub'; channel: string; message: string }
  | { cdsBus: 'ping'; id: number };

/** Primary → worker: a relayed message, or the answer to `sub` / `ping`. */
export type FromRelay = { cdsBus: 'msg'; channel: string; message: string } | { cdsBus: 'done'; id: number };

/** One end of an ordered message channel (a worker's `process`, the primary's `cluster.Worker`). */
export interface IpcEndpoint<Out, In> {
  /** Resolves once the message is handed to the channel; rejects when it is closed. */
  send(message: Out): Promise<void>;
  /** Calls `listener` with each message of the bus arriving; returns how to stop. */
  listen(listener: (message: In) => void): () => void;
}

/** Only the bus's own messages: node:cluster and others share the channel. */
function isBusMessage(value: unknown): value is { cdsBus: string } {
  return typeof value === 'object' && value !== null && typeof (value as { cdsBus?: unknown }).cdsBus === 'string';
}

/** What Node's IPC channel carries (JSON). */
type Serializable = string | number | boolean | object;

/** The part of `process` and `cluster.Worker` the endpoints use. */
export interface NodeIpcChannel {
  send?: ((message: Serializable, callback: (error: Error | null) => void) => boolean) | undefined;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
}

/** An endpoint over Node's IPC channel: a worker's `process`, or a `cluster.Worker` in the primary. */
export function nodeIpcEndpoint<Out extends object, In>(channel: NodeIpcChannel): IpcEndpoint<Out, In> {
  return {
    send(message) {
      return new Promise((resolve, reject) => {
        const send = channel.send;
        if (!send) {
          reject(new Error('No IPC channel: not started by a cluster primary'));
          return;
        }
        try {
          send.call(channel, message, (error) => (error ? reject(error) : resolve()));
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    },
    listen(listener) {
      const filtered = (value: unknown) => {
        if (isBusMessage(value)) listener(value as In);
      };
      channel.on('message', filtered);
      return () => channel.off('message', filtered);
    },
  };
}
