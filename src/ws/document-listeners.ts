import { AppError } from '../core/errors.js';
import type { JsonObject } from '../core/json.js';
import type { DocumentListenerService } from '../core/listeners/document-listener-service.js';
import {
  listenerCancelMessage,
  listenerErrorMessage,
  listenerKey,
  parseListen,
  parseListenerId,
  unlistenAckMessage,
} from '../core/listeners/listen-request.js';
import type { PathLimits } from '../core/paths.js';
import { DENIED_BY_RULES, deniedByRules } from '../core/realtime/tree-rules.js';
import type { DocumentFeed } from './document-feed.js';
import { DocumentListener, type ListenerHost } from './document-listener.js';

/** What a connection's listeners need from it and from the gateway. */
export interface DocumentListenersOptions {
  projectId: number;
  /** The listening client user; undefined for an admin connection, which sees every document (§13). */
  userId: number | undefined;
  service: DocumentListenerService;
  pathLimits: PathLimits;
  /** The project's document feed, started on first use. */
  feed: () => DocumentFeed;
  /** Throws the §1 refusal when the caller may not listen (a user needs `client.documents`, §10). */
  requireDocuments: () => Promise<void>;
  /** Subscriptions and listeners the connection may still open (§4's limit counts both). */
  freeSlots: () => number;
  maxSubscriptions: number;
  send: (text: string) => void;
  onError: (error: unknown) => void;
}

/**
 * The document listeners of one connection (§10): `listen` and `unlisten`, handled in the
 * connection's message order, and the rule review (§9). Each listener runs on its own
 * (`DocumentListener`); this only files them by id and in the project's feed.
 */
export class DocumentListeners {
  private readonly live = new Map<string, DocumentListener>();
  private feed: DocumentFeed | null = null;

  constructor(private readonly options: DocumentListenersOptions) {}

  /** Number of listeners (live or starting). */
  get size(): number {
    return this.live.size;
  }

  /** Handles a `listen` or `unlisten` message; every refusal is an `error` event. */
  async handle(action: 'listen' | 'unlisten', message: JsonObject): Promise<void> {
    try {
      if (action === 'listen') await this.listen(message);
      else this.unlisten(message);
    } catch (error) {
      if (!(error instanceof AppError)) this.options.onError(error);
      this.options.send(listenerErrorMessage(error instanceof AppError ? error.message : 'Internal error', message.id));
    }
  }

  private async listen(message: JsonObject): Promise<void> {
    const { options } = this;
    const request = parseListen(message, options.pathLimits);
    const key = listenerKey(request.id);
    if (this.live.has(key)) throw new AppError('bad_request', 'A listener with this id is live');
    if (options.freeSlots() <= 0) {
      throw new AppError('bad_request', `Too many subscriptions (max ${options.maxSubscriptions})`);
    }
    await options.requireDocuments();
    const access = await options.service.access(options.projectId, options.userId);
    const feed = this.feedOf();
    const listener = new DocumentListener(request.id, request.target, access, this.host(feed));
    // Filed before the read: every commit after it reaches the listener (held until the read is done).
    this.live.set(key, listener);
    feed.index.add(request.target, listener);
    try {
      await feed.ready();
      await listener.start(request.since, deniedByRules);
    } catch (error) {
      this.drop(key, listener);
      throw error;
    }
  }

  private unlisten(message: JsonObject): void {
    const id = parseListenerId(message);
    const key = listenerKey(id);
    const listener = this.live.get(key);
    if (!listener) throw new AppError('bad_request', 'Unknown listener');
    this.drop(key, listener);
    this.options.send(unlistenAckMessage(id));
  }

  /**
   * Checks the listeners again under the rules now (§9): those decided under another ruleset or
   * `request.auth`, or all when `all`. A doc listener no longer granted `get` is cancelled; a query
   * listener reads its result again and sends the difference.
   */
  async reviewGrants(all: boolean): Promise<void> {
    if (this.live.size === 0) return;
    const { service, projectId, userId } = this.options;
    const access = await service.access(projectId, userId);
    for (const [key, listener] of [...this.live]) {
      const same = listener.access.ruleset === access.ruleset && listener.access.basis === access.basis;
      if ((!all && same) || listener.closed) continue;
      listener.access = access;
      if (listener.target.kind === 'document') {
        if (access.mayGet(listener.target.path, listener.heldDocument)) continue;
        this.drop(key, listener);
        this.options.send(listenerCancelMessage(listener.id, DENIED_BY_RULES));
      } else {
        listener.reload();
      }
    }
  }

  /** Ends every listener (the connection closed). */
  close(): void {
    for (const [key, listener] of [...this.live]) this.drop(key, listener);
  }

  private drop(key: string, listener: DocumentListener): void {
    listener.closed = true;
    if (this.live.get(key) === listener) this.live.delete(key);
    this.feed?.index.remove(listener.target, listener);
  }

  private feedOf(): DocumentFeed {
    this.feed ??= this.options.feed();
    return this.feed;
  }

  private host(feed: DocumentFeed): ListenerHost {
    const { projectId, service, send, onError } = this.options;
    return { projectId, service, feed, send, onError };
  }
}
