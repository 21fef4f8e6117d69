import type { FromRelay, IpcEndpoint, ToRelay } from './ipc-messages.js';

type WorkerEndpoint = IpcEndpoint<FromRelay, ToRelay>;

/**
 * The cluster primary's half of the IPC bus: it keeps which workers listen on which channel and
 * relays each published message to every one of them, the publisher included, in the order it
 * received them. It holds no listeners of its own and never reads a message.
 */
export class IpcRelay {
  private readonly listenersOf = new Map<string, Set<WorkerEndpoint>>();
  private readonly attached = new Map<WorkerEndpoint, () => void>();

  /** Starts serving a worker; returns how to forget it (when it exits). */
  attach(worker: WorkerEndpoint, onSendError: (error: unknown) => void = () => undefined): () => void {
    const stop = worker.listen((message) => this.received(worker, message, onSendError));
    this.attached.set(worker, stop);
    return () => this.detach(worker);
  }

  /** How many workers listen on `channel` (tests, metrics). */
  listening(channel: string): number {
    return this.listenersOf.get(channel)?.size ?? 0;
  }

  private detach(worker: WorkerEndpoint): void {
    this.attached.get(worker)?.();
    this.attached.delete(worker);
    for (const [channel, workers] of this.listenersOf) {
      workers.delete(worker);
      if (workers.size === 0) this.listenersOf.delete(channel);
    }
  }

  private received(from: WorkerEndpoint, message: ToRelay, onSendError: (error: unknown) => void): void {
    const reply = (answer: FromRelay) => void from.send(answer).catch(onSendError);
    switch (message.cdsBus) {
      case 'pub': {
        const relayed: FromRelay = { cdsBus: 'msg', channel: message.channel, message: message.message };
        // A worker that just exited is detached by its `exit` handler; a failed send there is expected.
        for (const worker of this.listenersOf.get(message.channel) ?? [])
          void worker.send(relayed).catch(() => undefined);
        return;
      }
      case 'sub': {
        let workers = this.listenersOf.get(message.channel);
        if (!workers) {
          workers = new Set();
          this.listenersOf.set(message.channel, workers);
        }
        workers.add(from);
        reply({ cdsBus: 'done', id: message.id });
        return;
      }
      case 'unsub': {
        const workers = this.listenersOf.get(message.channel);
        workers?.delete(from);
        if (workers?.size === 0) this.listenersOf.delete(message.channel);
        return;
      }
      case 'ping':
        reply({ cdsBus: 'done', id: message.id });
        return;
    }
  }
}
