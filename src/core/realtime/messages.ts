/**
 * The WebSocket protocol of §4: parsing client messages (`{action, path, value?, id?, since?}`,
 * §17's `on_disconnect` with its `op`) and building the server's `init`, `resume`, `update`,
 * `ack`, `error`, `result` and `cancel` messages as JSON text.
 */
import { AppError } from '../errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../json.js';
import { defaultPathLimits, type PathLimits } from '../paths.js';
import { parseTreePath } from './tree-path.js';
import type { TreeWriteOptions } from './tree-service.js';

/** The `id` a client may attach to a message; echoed in the reply. */
export type MessageId = string | number;

/** A valid client message, its path normalized. */
export type ClientMessage =
  | { action: 'subscribe'; path: string; id?: MessageId; since?: number }
  | { action: 'unsubscribe'; path: string; id?: MessageId }
  | { action: 'set'; path: string; value: JsonValue; id?: MessageId; ifMatch?: string }
  | { action: 'patch'; path: string; value: JsonObject; id?: MessageId; ifMatch?: string }
  | { action: 'delete'; path: string; id?: MessageId; ifMatch?: string }
  | { action: 'auth'; accessToken: string; id?: MessageId }
  /** §10: handled by the connection's document listeners, which check the rest of the message. */
  | { action: 'listen' | 'unlisten'; body: JsonObject; id?: MessageId }
  /** §16: a server function, by name, with its input (null when absent). */
  | { action: 'call'; name: string; input: JsonValue; id?: MessageId }
  /** §17: a write stored to run when the connection ends, or `cancel` of those at or below `path`. */
  | { action: 'on_disconnect'; request: DisconnectRequest; path: string; id?: MessageId };

/** What an `on_disconnect` message asks (§17), its path normalized; `value` checked as the write's. */
export type DisconnectRequest =
  | { op: 'set'; path: string; value: JsonValue }
  | { op: 'patch'; path: string; value: JsonObject }
  | { op: 'delete' | 'cancel'; path: string };

/** The actions that write (and are answered by `ack` once committed). */
export type WriteAction = 'set' | 'patch' | 'delete';

/** Either a message or the reason it was refused (with the id to echo when one was readable). */
export type ParsedClientMessage = { ok: true; message: ClientMessage } | { ok: false; error: string; id?: MessageId };

const ACTIONS = new Set([
  'subscribe',
  'unsubscribe',
  'set',
  'patch',
  'delete',
  'auth',
  'listen',
  'unlisten',
  'call',
  'on_disconnect',
]);

const DISCONNECT_OPS = new Set(['set', 'patch', 'delete', 'cancel']);

function refuse(error: string, id?: MessageId): ParsedClientMessage {
  return id === undefined ? { ok: false, error } : { ok: false, error, id };
}

/** Parses one text frame of a client; every problem is a message for an `error` event. */
export function parseClientMessage(text: string, limits: PathLimits = defaultPathLimits): ParsedClientMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return refuse('Invalid JSON');
  }
  if (!isJsonObject(parsed)) return refuse('A message must be a JSON object');
  const rawId = parsed.id;
  if (rawId !== undefined && typeof rawId !== 'string' && !(typeof rawId === 'number' && Number.isFinite(rawId))) {
    return refuse('id must be a string or a number');
  }
  const id = rawId as MessageId | undefined;
  const action = parsed.action;
  if (typeof action !== 'string' || !ACTIONS.has(action)) {
    return refuse(typeof action === 'string' ? `Unknown action '${action}'` : 'action is required', id);
  }
  if (action === 'listen' || action === 'unlisten') {
    return { ok: true, message: id === undefined ? { action, body: parsed } : { action, body: parsed, id } };
  }
  if (action === 'call') {
    if (typeof parsed.name !== 'string')
      return refuse(parsed.name === undefined ? 'name is required' : 'name must be a string', id);
    const call = { action: 'call' as const, name: parsed.name, input: (parsed.input ?? null) as JsonValue };
    return { ok: true, message: id === undefined ? call : { ...call, id } };
  }
  if (action === 'auth') {
    // §14: a new access token for the socket; it names no path.
    const token = parsed.access_token;
    if (typeof token !== 'string' || token === '') return refuse('access_token is required', id);
    return {
      ok: true,
      message: id === undefined ? { action, accessToken: token } : { action, accessToken: token, id },
    };
  }
  if (typeof parsed.path !== 'string')
    return refuse(parsed.path === undefined ? 'path is required' : 'path must be a string', id);
  let path: string;
  try {
    path = parseTreePath(parsed.path, limits);
  } catch (error) {
    if (error instanceof AppError) return refuse(error.message, id);
    throw error;
  }
  const base = id === undefined ? { path } : { path, id };
  // A write's `if_match` (§11): one ETag without its quotes, or `*`.
  const ifMatch = parsed.if_match;
  if (ifMatch !== undefined && typeof ifMatch !== 'string') return refuse('if_match must be a string', id);
  const write = ifMatch === undefined ? base : { ...base, ifMatch };
  if (action === 'on_disconnect') return parseDisconnect(parsed, path, id);
  switch (action) {
    case 'subscribe': {
      const since = parsed.since;
      if (since === undefined || since === null) return { ok: true, message: { action, ...base } };
      if (typeof since !== 'number' || !Number.isSafeInteger(since)) return refuse('since must be an integer', id);
      return { ok: true, message: { action, ...base, since } };
    }
    case 'set':
      if (!('value' in parsed)) return refuse('value is required', id);
      return { ok: true, message: { action, ...write, value: parsed.value as JsonValue } };
    case 'patch':
      if (!isJsonObject(parsed.value)) return refuse('value must be an object', id);
      return { ok: true, message: { action, ...write, value: parsed.value } };
    case 'unsubscribe':
      return { ok: true, message: { action, ...base } };
    case 'delete':
      return { ok: true, message: { action, ...write } };
    default:
      return refuse(`Unknown action '${action}'`, id);
  }
}

/** The rest of an `on_disconnect` message (§17): its `op` and, for a set or patch, its value. */
function parseDisconnect(parsed: JsonObject, path: string, id: MessageId | undefined): ParsedClientMessage {
  const op = parsed.op;
  if (typeof op !== 'string' || !DISCONNECT_OPS.has(op)) {
    return refuse(op === undefined ? 'op is required' : "op must be 'set', 'patch', 'delete' or 'cancel'", id);
  }
  let request: DisconnectRequest;
  if (op === 'set') {
    if (!('value' in parsed)) return refuse('value is required', id);
    request = { op, path, value: parsed.value as JsonValue };
  } else if (op === 'patch') {
    if (!isJsonObject(parsed.value)) return refuse('value must be an object', id);
    request = { op, path, value: parsed.value };
  } else request = { op: op as 'delete' | 'cancel', path };
  const message = { action: 'on_disconnect' as const, request, path };
  return { ok: true, message: id === undefined ? message : { ...message, id } };
}

function withId(message: Record<string, JsonValue>, id: MessageId | undefined): string {
  if (id !== undefined) message.id = id;
  return JSON.stringify(message);
}

/** `init`: the snapshot answering a `subscribe`, with the version it reflects. */
export function initMessage(path: string, value: JsonValue, version: number, id?: MessageId): string {
  return withId({ event: 'init', path, value, version }, id);
}

/** `resume`: answers a `subscribe` with `since` whose missed updates follow. */
export function resumeMessage(path: string, since: number, id?: MessageId): string {
  return withId({ event: 'resume', path, version: since }, id);
}

/** `update`: a committed write concerning a subscription. */
export function updateMessage(path: string, value: JsonValue, version: number): string {
  return updateMessageOfJson(path, JSON.stringify(value), version);
}

/** `update` around a value already serialized (`changeJson`): the same text as `updateMessage`. */
export function updateMessageOfJson(path: string, valueJson: string, version: number): string {
  return `{"event":"update","path":${JSON.stringify(path)},"value":${valueJson},"version":${version}}`;
}

/** `ack`: a write committed, or an unsubscribe done. */
export function ackMessage(
  action: WriteAction | 'unsubscribe' | 'on_disconnect',
  path: string,
  id?: MessageId,
): string {
  return withId({ event: 'ack', action, path }, id);
}

/** `ack` of an `auth`: the socket now runs on the new token (§14). */
export function authAckMessage(id?: MessageId): string {
  return withId({ event: 'ack', action: 'auth' }, id);
}

/** `error`: a refused message; the connection stays open. A refused precondition adds the path's current `etag` and `value` (§11). */
export function errorMessage(message: string, id?: MessageId, current?: { etag: string; value: JsonValue }): string {
  return withId(
    current ? { event: 'error', message, etag: current.etag, value: current.value } : { event: 'error', message },
    id,
  );
}

/** `result`: what a called server function returned (§16), its JSON text as the function's call made it. */
export function resultMessage(resultJson: string, id?: MessageId): string {
  return `{"event":"result",${id === undefined ? '' : `"id":${JSON.stringify(id)},`}"result":${resultJson}}`;
}

/** `error` answering a `call` (§16): the status the HTTP route would have answered, and its message. */
export function callErrorMessage(status: number, message: string, id?: MessageId): string {
  return withId({ event: 'error', status, message }, id);
}

/** `cancel`: a subscription the rules no longer grant (§9) has ended; nothing more follows for it. */
export function cancelMessage(path: string, message: string): string {
  return JSON.stringify({ event: 'cancel', path, message });
}

/** The precondition of a WebSocket write: its `if_match`, one ETag or `*` (§11). */
export function writeOptionsOf(message: { ifMatch?: string }): TreeWriteOptions {
  if (message.ifMatch === undefined) return {};
  return { ifMatch: message.ifMatch === '*' ? '*' : [message.ifMatch] };
}
