/**
 * The WebSocket protocol (§4 realtime tree, §10 document listeners, §14 `auth`, §16 `call`, §17
 * `on_disconnect`) as an AsyncAPI 3
 * document, served at `GET /asyncapi.json` beside the OpenAPI one, so client authors have one
 * machine-readable contract. Payloads are TypeBox schemas (JSON Schema).
 */
import Type, { type TProperties, type TSchema } from 'typebox';
import type { HttpApp } from './server.js';

const Id = Type.Union([Type.String(), Type.Number()], { description: 'Echoed in the reply' });
const ListenerId = Type.Union([Type.String(), Type.Integer()], {
  description: 'Names the listener on this connection; 7 and "7" differ',
});
const Path = Type.String({ description: 'A slash-separated path' });
const Version = Type.Integer({ description: 'A project version (tree and documents have separate sequences)' });
const Document = Type.Object({
  id: Type.String(),
  path: Type.String(),
  data: Type.Record(Type.String(), Type.Unknown()),
});

const object = (properties: Record<string, TSchema>, optional: string[] = []) =>
  Type.Object(
    Object.fromEntries(
      Object.entries(properties).map(([key, schema]) => [key, optional.includes(key) ? Type.Optional(schema) : schema]),
    ),
  );
const action = (name: string) => Type.Literal(name);
const event = (name: string) => Type.Literal(name);

/** A §10 `listen` message: the listener's id, what it listens to (`target`), and the version to resume after. */
const listenMessage = <Target extends TProperties>(target: Target) =>
  Type.Object({ action: Type.Literal('listen'), id: ListenerId, ...target, since: Type.Optional(Version) });

/** A §10 event of one listener at a version, with what it carries (`content`). */
const listenerEvent = <Name extends string, Content extends TProperties>(name: Name, content: Content) =>
  Type.Object({ event: Type.Literal(name), id: ListenerId, version: Version, ...content });

// The §10 messages, exported with their static types: the SDK's wire types are checked against them.
export const ListenDocumentMessage = listenMessage({ doc: Path });
export const ListenQueryMessage = listenMessage({
  collection: Type.String(),
  parent_path: Type.Optional(Type.String()),
  where: Type.Optional(Type.Array(Type.String({ description: 'field__lookup:value' }), { maxItems: 20 })),
  order_by: Type.Optional(Type.String({ description: 'field or -field, nested with __' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
});
export const ListenerChange = Type.Object({
  type: Type.Union([Type.Literal('added'), Type.Literal('modified'), Type.Literal('removed')]),
  document: Type.Union([Document, Type.Object({ id: Type.String(), path: Type.String() })]),
});
export const SnapshotEvent = listenerEvent('snapshot', { documents: Type.Array(Document) });
export const ChangesEvent = listenerEvent('changes', { changes: Type.Array(ListenerChange) });

/** §17: a write stored to run when the connection ends, or the cancel of those at or below `path`. */
export const OnDisconnectMessage = Type.Object({
  action: Type.Literal('on_disconnect'),
  op: Type.Union([Type.Literal('set'), Type.Literal('patch'), Type.Literal('delete'), Type.Literal('cancel')]),
  path: Path,
  value: Type.Optional(
    Type.Unknown({ description: 'set: any value (.sv server values resolved when it runs); patch: an object' }),
  ),
  id: Type.Optional(Id),
});

const clientMessages: Record<string, { summary: string; payload: TSchema }> = {
  subscribe: {
    summary: 'Subscribe to a tree path; with since, resume from the change log',
    payload: object({ action: action('subscribe'), path: Path, id: Id, since: Version }, ['id', 'since']),
  },
  unsubscribe: {
    summary: 'End a subscription',
    payload: object({ action: action('unsubscribe'), path: Path, id: Id }, ['id']),
  },
  set: {
    summary: 'Replace the subtree at path',
    payload: object({ action: action('set'), path: Path, value: Type.Unknown(), id: Id, if_match: Type.String() }, [
      'id',
      'if_match',
    ]),
  },
  patch: {
    summary: 'Set child paths of path at once',
    payload: object(
      {
        action: action('patch'),
        path: Path,
        value: Type.Record(Type.String(), Type.Unknown()),
        id: Id,
        if_match: Type.String(),
      },
      ['id', 'if_match'],
    ),
  },
  delete: {
    summary: 'Delete the subtree at path',
    payload: object({ action: action('delete'), path: Path, id: Id, if_match: Type.String() }, ['id', 'if_match']),
  },
  auth: {
    summary: 'Replace the socket token',
    payload: object({ action: action('auth'), access_token: Type.String(), id: Id }, ['id']),
  },
  listenDocument: { summary: 'Listen to one document', payload: ListenDocumentMessage },
  listenQuery: {
    summary: 'Listen to a query: what GET /documents/query/{collection} returns with these parameters',
    payload: ListenQueryMessage,
  },
  unlisten: { summary: 'End a listener', payload: object({ action: action('unlisten'), id: ListenerId }) },
  call: {
    summary: 'Call a server function by name (answered by result, or error with status)',
    payload: object({ action: action('call'), name: Type.String(), input: Type.Unknown(), id: Id }, ['input', 'id']),
  },
  onDisconnect: {
    summary:
      'Store a set, patch or delete to run when this connection ends (at most 64), or cancel every stored one at or below path; answered by ack with action on_disconnect',
    payload: OnDisconnectMessage,
  },
};

const serverMessages: Record<string, { summary: string; payload: TSchema }> = {
  init: {
    summary: 'The snapshot answering subscribe',
    payload: object({ event: event('init'), path: Path, value: Type.Unknown(), version: Version, id: Id }, ['id']),
  },
  update: {
    summary: 'A committed write concerning a subscription',
    payload: object({ event: event('update'), path: Path, value: Type.Unknown(), version: Version }),
  },
  resume: {
    summary: 'Answers subscribe or listen with since: the missed updates or changes follow',
    payload: Type.Union([
      object({ event: event('resume'), path: Path, version: Version, id: Id }, ['id']),
      object({ event: event('resume'), id: ListenerId, version: Version }),
    ]),
  },
  ack: {
    summary: 'A write committed, an on_disconnect stored or cancelled, an unsubscribe, unlisten or auth done',
    payload: object({ event: event('ack'), action: Type.String(), path: Path, id: Type.Union([Id, ListenerId]) }, [
      'path',
      'id',
    ]),
  },
  error: {
    summary: 'A refused message; the connection stays open',
    payload: object(
      {
        event: event('error'),
        message: Type.String(),
        id: Id,
        etag: Type.String(),
        value: Type.Unknown(),
        status: Type.Integer({
          description:
            'Answering call: the status POST /functions/{name} would answer; answering a write a before hook refused or could not run: the status the REST write would answer',
        }),
      },
      ['id', 'etag', 'value', 'status'],
    ),
  },
  result: {
    summary: 'Answers call: what the server function returned',
    payload: object({ event: event('result'), result: Type.Unknown(), id: Id }, ['id']),
  },
  cancel: {
    summary: 'A subscription (path) or doc listener (id) the rules no longer grant',
    payload: object({ event: event('cancel'), path: Path, id: ListenerId, message: Type.String() }, ['path', 'id']),
  },
  snapshot: { summary: "A listener's result at version, in query order", payload: SnapshotEvent },
  changes: {
    summary: 'What one commit changed in a listener result: removed, then added, then modified',
    payload: ChangesEvent,
  },
};

const refs = (channel: string, names: string[]) =>
  names.map((name) => ({ $ref: `#/channels/${channel}/messages/${name}` }));

/** The send and receive operations of one channel, over every message. */
const actionsOf = (channel: string) => ({
  action: 'receive',
  channel: { $ref: `#/channels/${channel}` },
  messages: refs(channel, Object.keys(clientMessages)),
});
const eventsOf = (channel: string) => ({
  action: 'send',
  channel: { $ref: `#/channels/${channel}` },
  messages: refs(channel, Object.keys(serverMessages)),
});

/** The AsyncAPI 3.0 document of `/realtime/ws` and of the admins' socket (§13). */
export function asyncApiDocument(): Record<string, unknown> {
  const messages = Object.fromEntries(
    [...Object.entries(clientMessages), ...Object.entries(serverMessages)].map(([name, { summary, payload }]) => [
      name,
      { name, summary, contentType: 'application/json', payload },
    ]),
  );
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Client Data Service WebSocket',
      version: '0.1.0',
      description:
        'GET /realtime/ws upgrades after the client and token checks (headers, or client_id, client_secret and access_token ' +
        'query parameters). Client and server messages are JSON text frames. ' +
        'GET /admin/projects/{project_id}/realtime/ws speaks the same protocol for admins and server keys: ' +
        'the admin token or key as Authorization or the access_token query parameter, document.view to connect, ' +
        'subscribe and listen, document.manage for each write (else an error event), no access rules.',
    },
    channels: {
      realtime: { address: '/realtime/ws', messages },
      adminRealtime: {
        address: '/admin/projects/{project_id}/realtime/ws',
        description: 'The realtime protocol for admins and server keys, not subject to rules.',
        parameters: {
          project_id: { description: 'A project of the caller’s organisation (else 404 at the upgrade).' },
        },
        messages: Object.fromEntries(
          Object.keys(messages).map((name) => [name, { $ref: `#/channels/realtime/messages/${name}` }]),
        ),
      },
    },
    operations: {
      sendClientMessage: actionsOf('realtime'),
      receiveServerMessage: eventsOf('realtime'),
      sendAdminMessage: actionsOf('adminRealtime'),
      receiveAdminEvent: eventsOf('adminRealtime'),
    },
  };
}

/** Serves the document at `GET /asyncapi.json` (outside the OpenAPI document). */
export function registerAsyncApi(app: HttpApp): void {
  const document = asyncApiDocument();
  app.get('/asyncapi.json', { schema: { hide: true } }, async () => document);
}
