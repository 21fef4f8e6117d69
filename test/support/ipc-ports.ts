/**
 * Two ends of an ordered, asynchronous message channel that copies what it carries (a
 * `MessageChannel`), standing for a worker's IPC channel to its cluster primary in tests.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { IpcEndpoint } from '../../src/bus/ipc-messages.js';

function endpointOf<Out, In>(port: MessagePort): IpcEndpoint<Out, In> {
  let open = true;
  port.once('close', () => {
    open = false;
  });
  return {
    async send(message) {
      if (!open) throw new Error('channel closed');
      port.postMessage(message);
    },
    listen(listener) {
      const onMessage = (message: In) => listener(message);
      port.on('message', onMessage);
      // Ports keep the test process alive while listened on; the suite's processes end anyway.
      port.unref();
      return () => port.off('message', onMessage);
    },
  };
}

/** [the worker's end, the primary's end]. */
export function messagePortPair<A, B>(): [IpcEndpoint<A, B>, IpcEndpoint<B, A>] {
  const { port1, port2 } = new MessageChannel();
  return [endpointOf<A, B>(port1), endpointOf<B, A>(port2)];
}
