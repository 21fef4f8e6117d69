/**
 * §17 in the SDK, on the wire: what the socket sends for on-disconnect ops and presences on each
 * connection, and how it takes the server's answers, over a fake WebSocket (no server: the
 * messages and their order are the subject; test/client/presence.test.ts runs them for real).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type CdsError, memoryStorage } from '../../packages/client/src/index.js';
import { presenceEntries } from '../../packages/client/src/presence.js';
import { Session } from '../../packages/client/src/session.js';
import { RealtimeSocket } from '../../packages/client/src/socket.js';
import type { SocketEvent, WebSocketLike } from '../../packages/client/src/websocket.js';
import { caught } from './service.js';

const USER = { id: 7, username: 'ann', nickname: 'Ann', avatar_url: null };
type Message = Record<string, unknown>;

/** A WebSocket that records what it is sent, and opens, answers and closes when the test says so. */
class FakeSocket implements WebSocketLike {
  static made: FakeSocket[] = [];
  readyState = 0;
  readonly sent: Message[] = [];
  private readonly listeners = new Map<string, ((event: SocketEvent) => void)[]>();

  constructor(readonly url: string) {
    FakeSocket.made.push(this);
  }
  send(data: string): void {
    this.sent.push(JSON.parse(data) as Message);
  }
  close(code = 1000): void {
    if (this.readyState === 3) return;
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
  receive(message: Message): void {
    this.emit({ type: 'message', data: JSON.stringify(message) });
  }
  /** Acknowledges every message sent so far that carries an id. */
  ackAll(): void {
    for (const m of this.sent) if (typeof m.id === 'string') this.receive({ event: 'ack', action: m.action, id: m.id });
  }
  private emit(event: SocketEvent): void {
    for (const listener of this.listeners.get(event.type) ?? []) listener(event);
  }
}

/** The messages without their ids (ids are the SDK's business). */
const withoutIds = (messages: Message[]) => messages.map(({ id: _id, ...rest }) => rest);

/** The n-th socket the client opened (1-based), once it exists, opened. */
async function opened(n: number): Promise<FakeSocket> {
  await vi.waitFor(() => expect(FakeSocket.made.length).toBeGreaterThanOrEqual(n), { timeout: 5_000 });
  const fake = FakeSocket.made[n - 1] as FakeSocket;
  fake.open();
  return fake;
}

function signedInSocket(errors: CdsError[] = []): RealtimeSocket {
  const storage = memoryStorage();
  const stored = { access_token: 'a', refresh_token: 'r', refresh_at: Date.now() + 3_600_000, user: USER };
  void storage.setItem('session', JSON.stringify(stored));
  const session = new Session(storage, 'session', () => Promise.reject(new Error('no refresh in this test')));
  return new RealtimeSocket({
    url: 'ws://127.0.0.1:1',
    clientId: 'c',
    clientSecret: 's',
    session,
    WebSocket: async () => FakeSocket,
    onError: (error) => errors.push(error),
  });
}

describe('on-disconnect ops on the wire', () => {
  let socket: RealtimeSocket;
  beforeEach(() => {
    FakeSocket.made = [];
    socket = signedInSocket();
  });
  afterEach(() => socket.close());

  it('arms the ops in order on every connection, then writes back what a dropped connection’s op replaced', async () => {
    const offline = socket.life.arm({ op: 'set', path: 'status/7', value: 'offline' });
    const first = await opened(1);
    const online = socket.write({ action: 'set', path: 'status/7', value: 'online' });
    const leaveRoom = socket.life.arm({ op: 'delete', path: 'rooms/r1/7' });
    const score = socket.life.arm({ op: 'patch', path: 'rooms/r1', value: { 'scores/7': null } });
    expect(withoutIds(first.sent)).toEqual([
      { action: 'on_disconnect', op: 'set', path: 'status/7', value: 'offline' },
      { action: 'set', path: 'status/7', value: 'online' },
      { action: 'on_disconnect', op: 'delete', path: 'rooms/r1/7' },
      { action: 'on_disconnect', op: 'patch', path: 'rooms/r1', value: { 'scores/7': null } },
    ]);
    first.ackAll();
    await Promise.all([offline, online, leaveRoom, score]);
    expect(socket.life.connected).toBe(true);

    first.close(1006);
    expect(socket.life.connected).toBe(false);
    const second = await opened(2);
    expect(withoutIds(second.sent)).toEqual([
      { action: 'on_disconnect', op: 'set', path: 'status/7', value: 'offline' },
      { action: 'on_disconnect', op: 'delete', path: 'rooms/r1/7' },
      { action: 'on_disconnect', op: 'patch', path: 'rooms/r1', value: { 'scores/7': null } },
      // The op set 'offline' when the first connection ended: the value set while connected comes back.
      { action: 'set', path: 'status/7', value: 'online' },
    ]);
    expect(new Set(second.sent.map((m) => m.id)).size).toBe(4);
  });

  it('writes back a set with the updates made after it, and a remove', async () => {
    void socket.life.arm({ op: 'set', path: 'me', value: 'gone' });
    void socket.life.arm({ op: 'delete', path: 'flag' });
    const first = await opened(1);
    first.ackAll();
    const set = socket.write({ action: 'set', path: 'me', value: { hp: 3, at: { x: 1 } } });
    first.ackAll();
    await set;
    const patch = socket.write({ action: 'patch', path: 'me', value: { hp: 2, 'at/y': 5 } });
    const remove = socket.write({ action: 'delete', path: 'flag' });
    first.ackAll();
    await Promise.all([patch, remove]);

    first.close(1006);
    const second = await opened(2);
    expect(withoutIds(second.sent).slice(2)).toEqual([
      { action: 'set', path: 'me', value: { hp: 2, at: { x: 1, y: 5 } } },
      { action: 'delete', path: 'flag' },
    ]);
  });

  it('writes nothing back after a write holding a server increment (it would be counted twice)', async () => {
    void socket.life.arm({ op: 'delete', path: 'hits' });
    void socket.life.arm({ op: 'set', path: 'me', value: 'gone' });
    const first = await opened(1);
    first.ackAll();
    const hits = socket.write({ action: 'set', path: 'hits', value: { n: { '.sv': { increment: 1 } } } });
    const me = socket.write({ action: 'set', path: 'me', value: { hp: 3 } });
    first.ackAll();
    await Promise.all([hits, me]);
    const patch = socket.write({ action: 'patch', path: 'me', value: { score: { '.sv': { increment: 5 } } } });
    first.ackAll();
    await patch;

    first.close(1006);
    const second = await opened(2);
    expect(withoutIds(second.sent)).toEqual([
      { action: 'on_disconnect', op: 'delete', path: 'hits' },
      { action: 'on_disconnect', op: 'set', path: 'me', value: 'gone' },
    ]);
  });

  it('cancel forgets the ops at and below the path (sent when connected, at once when not)', async () => {
    void socket.life.arm({ op: 'delete', path: 'rooms/r1/7' });
    void socket.life.arm({ op: 'delete', path: 'rooms/r1' });
    void socket.life.arm({ op: 'delete', path: 'rooms/r10' });
    const first = await opened(1);
    first.ackAll();
    const cancelled = socket.life.cancel('rooms/r1');
    expect(withoutIds(first.sent.slice(-1))).toEqual([{ action: 'on_disconnect', op: 'cancel', path: 'rooms/r1' }]);
    first.ackAll();
    await cancelled;

    first.close(1006);
    const second = await opened(2);
    expect(withoutIds(second.sent)).toEqual([{ action: 'on_disconnect', op: 'delete', path: 'rooms/r10' }]);
    second.close(1006);
    // Disconnected: no connection holds the ops, so nothing is sent and it resolves at once.
    await socket.life.cancel('');
    expect(socket.life.size).toBe(0);
  });

  it('a refused op rejects with the mapped CdsError and is not armed again', async () => {
    const denied = socket.life.arm({ op: 'set', path: 'locked', value: 1 });
    const kept = socket.life.arm({ op: 'delete', path: 'mine' });
    const first = await opened(1);
    const [deniedMessage, keptMessage] = first.sent;
    first.receive({ event: 'error', message: 'Permission denied by rules', id: deniedMessage?.id });
    first.receive({ event: 'ack', action: 'on_disconnect', path: 'mine', id: keptMessage?.id });
    expect(await caught(denied)).toMatchObject({ code: 'permission-denied', status: 403 });
    await kept;

    first.close(1006);
    const second = await opened(2);
    expect(withoutIds(second.sent)).toEqual([{ action: 'on_disconnect', op: 'delete', path: 'mine' }]);
  });

  it('an op made while disconnected waits for the connection and resolves on its ack', async () => {
    const armed = socket.life.arm({ op: 'delete', path: 'later' });
    let settled = false;
    void armed.then(() => {
      settled = true;
    });
    const first = await opened(1);
    first.close(1006); // dropped before the ack: sent again on the next connection
    const second = await opened(2);
    expect(settled).toBe(false);
    second.ackAll();
    await armed;
    expect(withoutIds(second.sent)).toEqual([{ action: 'on_disconnect', op: 'delete', path: 'later' }]);
  });

  it('signed out, an op and a presence fail with unauthenticated instead of waiting', async () => {
    const session = new Session(memoryStorage(), 'session', () => Promise.reject(new Error('no session')));
    const signedOut = new RealtimeSocket({
      url: 'ws://127.0.0.1:1',
      clientId: 'c',
      clientSecret: 's',
      session,
      WebSocket: async () => FakeSocket,
    });
    const armed = caught(signedOut.life.arm({ op: 'delete', path: 'x' }));
    const presence = signedOut.life.presence('lobby', {}, Promise.resolve(7));
    expect(await armed).toMatchObject({ code: 'unauthenticated' });
    expect(await caught(presence.joined)).toMatchObject({ code: 'unauthenticated' });
    expect(signedOut.life.size).toBe(0);
    expect(FakeSocket.made).toHaveLength(0);
    signedOut.close();
  });

  it('reports connected and each open and close to onConnectionChange until unsubscribed', async () => {
    const changes: boolean[] = [];
    const stop = socket.life.onChange((connected) => changes.push(connected));
    expect(socket.life.connected).toBe(false);
    const armed = caught(socket.life.arm({ op: 'delete', path: 'x' }));
    const first = await opened(1);
    expect(socket.life.connected).toBe(true);
    first.close(1006);
    await opened(2);
    expect(changes).toEqual([true, false, true]);
    stop();
    socket.close();
    expect(socket.life.connected).toBe(false);
    expect(changes).toEqual([true, false, true]);
    expect(await armed).toMatchObject({ code: 'network', detail: 'Client closed' });
  });
});

describe('presence on the wire', () => {
  let socket: RealtimeSocket;
  const errors: CdsError[] = [];
  beforeEach(() => {
    FakeSocket.made = [];
    errors.length = 0;
    socket = signedInSocket(errors);
  });
  afterEach(() => socket.close());

  it('arms the delete of <path>/<user>/<connection>, writes the node once armed, and again under each new connection', async () => {
    const presence = socket.life.presence('/lobby/', { name: 'Ann' }, Promise.resolve(7));
    const first = await opened(1);
    const firstId = socket.life.connectionId;
    expect(firstId).toMatch(/^[0-9a-f]{16}$/);
    const node = `lobby/7/${firstId}`;
    expect(withoutIds(first.sent)).toEqual([{ action: 'on_disconnect', op: 'delete', path: node }]);
    first.ackAll();
    await vi.waitFor(() => expect(first.sent).toHaveLength(2));
    expect(withoutIds(first.sent.slice(1))).toEqual([
      { action: 'set', path: node, value: { name: 'Ann', since: { '.sv': 'timestamp' } } },
    ]);
    first.receive({ event: 'ack', action: 'set', id: first.sent[1]?.id });
    await presence.joined;

    const updated = presence.update({ name: 'Ann', ready: true });
    expect(withoutIds(first.sent.slice(2))).toEqual([
      { action: 'set', path: node, value: { name: 'Ann', ready: true, since: { '.sv': 'timestamp' } } },
    ]);
    first.receive({ event: 'ack', action: 'set', id: first.sent[2]?.id });
    await updated;

    first.close(1006);
    const second = await opened(2);
    const next = `lobby/7/${socket.life.connectionId}`;
    expect(next).not.toBe(node);
    second.ackAll();
    await vi.waitFor(() => expect(second.sent).toHaveLength(2));
    expect(withoutIds(second.sent)).toEqual([
      { action: 'on_disconnect', op: 'delete', path: next },
      { action: 'set', path: next, value: { name: 'Ann', ready: true, since: { '.sv': 'timestamp' } } },
    ]);

    const left = presence.leave();
    expect(withoutIds(second.sent.slice(2))).toEqual([
      { action: 'delete', path: next },
      { action: 'on_disconnect', op: 'cancel', path: next },
    ]);
    second.ackAll();
    await left;
    second.close(1006);
    expect(socket.life.size).toBe(0);
    expect(errors).toEqual([]);
  });

  it('never writes the node when its on-disconnect delete is refused', async () => {
    const presence = socket.life.presence('lobby', {}, Promise.resolve(7));
    const first = await opened(1);
    first.receive({ event: 'error', message: 'Permission denied by rules', id: first.sent[0]?.id });
    expect(await caught(presence.joined)).toMatchObject({ code: 'permission-denied' });
    expect(first.sent).toHaveLength(1);
    expect(socket.life.size).toBe(0);
  });
});

describe('presenceEntries', () => {
  it('gives one entry per user: its number of connections and the state of the latest one, by since', () => {
    const value = {
      '7': { a: { name: 'Ann', tab: 1, since: 100 }, b: { name: 'Ann', tab: 2, since: 300 } },
      '9': { c: { name: 'Bob', since: 200 } },
      odd: { d: { since: 1 } },
      '11': 'not a connection',
    };
    expect(presenceEntries(value)).toEqual([
      { user_id: 7, connections: 2, state: { name: 'Ann', tab: 2 }, since: 300 },
      { user_id: 9, connections: 1, state: { name: 'Bob' }, since: 200 },
    ]);
    expect(presenceEntries(null)).toEqual([]);
  });
});
