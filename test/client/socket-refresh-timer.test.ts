/**
 * The SDK socket's token refresh timer, on a fake clock (no server: the timing is the subject).
 * Timers may fire a little before the wall clock reaches their due time; a refresh timer that
 * fires early must wait again rather than ask for a token that is not yet due and never wake.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { memoryStorage } from '../../packages/client/src/index.js';
import { Session } from '../../packages/client/src/session.js';
import { RealtimeSocket } from '../../packages/client/src/socket.js';
import type { AuthResponse } from '../../packages/client/src/types.js';
import type { SocketEvent, WebSocketLike } from '../../packages/client/src/websocket.js';

const START = Date.parse('2026-01-01T00:00:00Z');
const REFRESH_IN_MS = 10_000;
const USER = { id: 7, username: 'ann', nickname: 'Ann', avatar_url: null };

/** A WebSocket that records what it is sent and opens when the test says so. */
class FakeSocket implements WebSocketLike {
  static made: FakeSocket[] = [];
  readyState = 0;
  readonly sent: Record<string, unknown>[] = [];
  private readonly listeners = new Map<string, ((event: SocketEvent) => void)[]>();

  constructor(readonly url: string) {
    FakeSocket.made.push(this);
  }
  send(data: string): void {
    this.sent.push(JSON.parse(data) as Record<string, unknown>);
  }
  close(code = 1000): void {
    this.readyState = 3;
    this.emit({ type: 'close', code });
  }
  addEventListener(type: string, listener: (event: SocketEvent) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  open(): void {
    this.readyState = 1;
    this.emit({ type: 'open' });
  }
  private emit(event: SocketEvent): void {
    for (const listener of this.listeners.get(event.type) ?? []) listener(event);
  }
}

function authResponse(accessToken: string): AuthResponse {
  return { access_token: accessToken, token_type: 'bearer', expires_in: 3600, refresh_token: 'r2', user: USER };
}

interface OpenSocket {
  socket: RealtimeSocket;
  fake: FakeSocket;
  /** Milliseconds from now until the session's refresh is due. */
  dueIn: number;
}

/** A signed-in session due for a refresh REFRESH_IN_MS from the start, and an open socket over it. */
async function openSocket(exchange: () => Promise<AuthResponse>): Promise<OpenSocket> {
  const storage = memoryStorage();
  const refreshAt = START + REFRESH_IN_MS;
  const stored = { access_token: 'old', refresh_token: 'r1', refresh_at: refreshAt, user: USER };
  await storage.setItem('session', JSON.stringify(stored));
  const session = new Session(storage, 'session', exchange);
  const socket = new RealtimeSocket({
    url: 'ws://127.0.0.1:1',
    clientId: 'c',
    clientSecret: 's',
    session,
    WebSocket: async () => FakeSocket,
  });
  socket.subscribe('rooms/a', () => {});
  // With fake timers, waitFor moves the clock on while it polls.
  await vi.waitFor(() => expect(FakeSocket.made).toHaveLength(1));
  const fake = FakeSocket.made[0] as FakeSocket;
  fake.open();
  return { socket, fake, dueIn: refreshAt - Date.now() };
}

describe('SDK socket refresh timer', () => {
  beforeEach(() => {
    FakeSocket.made = [];
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.setSystemTime(START);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('refreshes when due and sends the new token with auth', async () => {
    const exchange = vi.fn(async () => authResponse('new'));
    const { socket, fake, dueIn } = await openSocket(exchange);
    await vi.advanceTimersByTimeAsync(dueIn - 1);
    expect(exchange).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(exchange).toHaveBeenCalledOnce();
    expect(fake.sent).toContainEqual({ action: 'auth', access_token: 'new' });
    socket.close();
  });

  it('waits again when its timer fires a millisecond before the refresh is due', async () => {
    const exchange = vi.fn(async () => authResponse('new'));
    const { socket, fake, dueIn } = await openSocket(exchange);
    // The wall clock runs a millisecond behind the timers: the timer fires at refresh_at - 1.
    vi.setSystemTime(Date.now() - 1);
    await vi.advanceTimersByTimeAsync(dueIn);
    expect(Date.now()).toBe(START + REFRESH_IN_MS - 1);
    expect(exchange).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(exchange).toHaveBeenCalledOnce();
    expect(fake.sent).toContainEqual({ action: 'auth', access_token: 'new' });
    socket.close();
  });
});
