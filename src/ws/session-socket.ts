import type { WebSocket } from 'ws';
import type { UpdateFrame } from './commit-broadcast.js';

const OPEN = 1;

/** The limits a connection's outbound side enforces. */
export interface SocketLimits {
  /** Past this many bytes waiting in the socket's send buffer, the client is too slow: close 1008. */
  maxBufferedBytes: number;
  /**
   * How long a socket closed by the server may take to finish the closing handshake before it is
   * destroyed. A slow consumer must first read its backlog to see its 1008, so it gets longer.
   */
  closeGraceMs: number;
  slowConsumerGraceMs: number;
}

/** What the connection learns from its socket's end. */
export interface SocketEnd {
  /** The connection is ending (closed by the server or the client): send and deliver nothing more. Called once. */
  closing(): void;
  /** The socket has closed. */
  closed(): void;
}

/** The raw `net.Socket` under a `ws` socket. */
interface RawSocket {
  cork(): void;
  uncork(): void;
  write(bytes: Buffer): boolean;
}

/**
 * The outbound side of one connection: messages and pre-framed updates written corked until the
 * turn ends, the slow-consumer limit, heartbeats and the closing handshake with its grace timer.
 */
export class SessionSocket {
  /** A ping went out and no sign of life came since. */
  private awaitingPong = false;
  /** Pings missed in a row. */
  private missed = 0;
  private corked = false;
  private ending = false;
  private graceTimer: NodeJS.Timeout | null = null;
  private socketClosed = false;
  private readonly closedCallbacks: (() => void)[] = [];

  constructor(
    private readonly socket: WebSocket,
    private readonly limits: SocketLimits,
    private readonly end: SocketEnd,
  ) {
    socket.on('pong', () => this.markAlive());
    // A client's own ping is a sign of life too (ws answers it with a pong by itself).
    socket.on('ping', () => this.markAlive());
    socket.on('close', () => this.onSocketClosed());
  }

  /** Whether the connection is ending: nothing more is sent or delivered. */
  get closing(): boolean {
    return this.ending;
  }

  /** The client showed a sign of life (a message, a ping or a pong). */
  markAlive(): void {
    this.awaitingPong = false;
    this.missed = 0;
  }

  /** Pings the client (a heartbeat, §17); `checkPong` later tells whether it answered. */
  ping(): void {
    this.awaitingPong = true;
    this.socket.ping();
  }

  /**
   * Once the pong wait after a ping is over: a ping with no sign of life since is missed, and a
   * client that missed two in a row is dropped (its connection ends: on-disconnect writes run).
   */
  checkPong(): void {
    if (!this.awaitingPong) return;
    this.awaitingPong = false;
    this.missed += 1;
    if (this.missed >= 2) this.socket.terminate();
  }

  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  /** Calls `callback` once the socket has closed (at once if it has). */
  onceClosed(callback: () => void): void {
    if (this.socketClosed) callback();
    else this.closedCallbacks.push(callback);
  }

  /** Starts the closing handshake with `code`; the socket is destroyed if it does not finish in time. */
  close(code: number, reason: string, graceMs = this.limits.closeGraceMs): void {
    if (this.ending) return;
    this.markEnding();
    this.socket.close(code, reason);
    this.graceTimer = setTimeout(() => this.socket.terminate(), graceMs);
    this.graceTimer.unref();
  }

  /** Destroys the socket at once. */
  terminate(): void {
    this.socket.terminate();
  }

  send(text: string): void {
    if (!this.writable()) return;
    this.corkUntilTurnEnds();
    this.socket.send(text, { binary: false });
  }

  /**
   * Sends an update framed once for all its receivers: its bytes go to the socket as they are,
   * where `ws` would frame them again for each. (`ws` writes each frame whole and queues nothing
   * here: it queues only while compressing or reading a Blob, and this gateway does neither.)
   */
  sendFrame(frame: UpdateFrame): void {
    if (!this.writable()) return;
    this.corkUntilTurnEnds();
    const raw = this.rawSocket();
    if (raw) raw.write(frame.wire);
    else this.socket.send(frame.payload, { binary: false });
  }

  /** Whether a message may be sent now; a client whose backlog passed the limit is closed (1008). */
  private writable(): boolean {
    if (this.ending || this.socket.readyState !== OPEN) return false;
    // Checked before sending: one large message (a big init) may pass, a backlog may not.
    if (this.socket.bufferedAmount > this.limits.maxBufferedBytes) {
      this.close(
        1008,
        'Send buffer over limit: the client does not read its messages',
        this.limits.slowConsumerGraceMs,
      );
      return false;
    }
    return true;
  }

  /** The net.Socket `ws` writes its frames to. */
  private rawSocket(): RawSocket | undefined {
    return (this.socket as unknown as { _socket?: RawSocket })._socket;
  }

  /**
   * Holds the socket's writes until the current run of JavaScript ends, then writes them at once:
   * the updates of one commit (a patch sends one per key) reach the client in one read, so a client
   * that groups the messages of a version (the SDK calls `onValue` once per version) does not see
   * them split by a preempted server; and the commits of a batch cost one system call per socket,
   * not one per commit.
   */
  private corkUntilTurnEnds(): void {
    if (this.corked) return;
    // Corking the net.Socket is what `ws`'s own Sender does for a frame in two parts.
    const raw = this.rawSocket();
    if (!raw) return;
    this.corked = true;
    raw.cork();
    queueMicrotask(() => {
      this.corked = false;
      raw.uncork();
    });
  }

  private markEnding(): void {
    if (this.ending) return;
    this.ending = true;
    this.end.closing();
  }

  private onSocketClosed(): void {
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.socketClosed = true;
    this.markEnding();
    this.end.closed();
    for (const callback of this.closedCallbacks.splice(0)) callback();
  }
}
