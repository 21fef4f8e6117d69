// Inbound backpressure: stop reading a client that queues more messages than this.
const MAX_QUEUED = 256;
const RESUME_BELOW = 32;
// A burst of one client's messages yields to the event loop this often, so others are heard too.
const YIELD_EVERY = 8;

/** The socket the messages come from. */
export interface InboundSocket {
  /** Whether the connection is ending: messages are then dropped. */
  readonly closing: boolean;
  pause(): void;
  resume(): void;
}

/**
 * Handles one message; resolves when the next may start, with the promise of a reply that may
 * still be on its way (a write's, waiting for its commit), or null. (In an object: a promise
 * resolved with a promise would wait for it.)
 */
export type MessageHandler = (text: string, isBinary: boolean) => Promise<{ reply: Promise<void> | null }>;

/**
 * A connection's inbound messages, handled one at a time in arrival order. A message counts as
 * queued until its reply is sent; past `MAX_QUEUED` the socket stops being read until the queue
 * drains below `RESUME_BELOW`.
 */
export class SessionInbox {
  private chain: Promise<void> = Promise.resolve();
  private queued = 0;
  private handledInARow = 0;
  private paused = false;

  constructor(
    private readonly socket: InboundSocket,
    private readonly handle: MessageHandler,
    private readonly onError: (error: unknown) => void,
  ) {}

  receive(text: string, isBinary: boolean): void {
    if (this.socket.closing) return;
    this.queued += 1;
    if (this.queued > MAX_QUEUED && !this.paused) {
      this.paused = true;
      this.socket.pause();
    }
    this.chain = this.chain.then(async () => {
      let reply: Promise<void> | null = null;
      try {
        if (!this.socket.closing) reply = (await this.handle(text, isBinary)).reply;
        this.handledInARow = this.queued > 1 ? this.handledInARow + 1 : 0;
        if (this.handledInARow >= YIELD_EVERY) {
          this.handledInARow = 0;
          await new Promise((resolve) => setImmediate(resolve));
        }
      } catch (error) {
        this.onError(error);
      } finally {
        if (reply) void reply.then(() => this.messageDone());
        else this.messageDone();
      }
    });
  }

  private messageDone(): void {
    this.queued -= 1;
    if (this.paused && this.queued < RESUME_BELOW && !this.socket.closing) {
      this.paused = false;
      this.socket.resume();
    }
  }
}
