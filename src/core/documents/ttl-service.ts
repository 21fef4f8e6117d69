/**
 * TTL settings of collections (§17): the admin operations, and the per-process cache every read
 * and write asks which collections expire. A change is in force here at once and announced on the
 * bus channel `ttl`; other instances drop their entry on the notice, and an entry is read again
 * after 1 s in case a notice never came (the contract's "in force within 1 s").
 */
import { LRUCache } from 'lru-cache';
import { type Bus, ChannelListening } from '../bus.js';
import type { Clock } from '../clock.js';
import { AppError, notFound } from '../errors.js';
import { parseCollectionName } from '../paths.js';
import type { DocumentMutation } from './document-store.js';
import type { IndexService } from './index-service.js';
import { isExpired, type LiveFilter, parseTtlField, type TtlView, ttlView } from './ttl.js';
import type { StoredTtl, TtlStore } from './ttl-store.js';

/** The bus channel of TTL changes: `{"projectId": 7}` per set and clear. */
export const TTL_CHANNEL = 'ttl';
export const TTL_NOT_SET = 'TTL not set';

/** Each collection's expiry field, by collection name. */
export type ProjectTtls = ReadonlyMap<string, readonly string[]>;

/** Where reads and writes find a project's TTL collections. */
export interface TtlSource {
  /** The project's TTL collections when cached and fresh (no promise: the no-TTL path stays as fast), else undefined. */
  cached(projectId: number): ProjectTtls | undefined;
  /** The project's TTL collections, read when not cached. */
  of(projectId: number): Promise<ProjectTtls>;
  /**
   * The project's TTL collections as last read here, even when due to be read again (which this
   * starts): for work that cannot wait, such as handing a commit to listeners. Undefined when never read.
   */
  latest(projectId: number): ProjectTtls | undefined;
  now(): number;
  /** How many direct children of a TTL collection are live (a TTL collection's admin page total). */
  countLive(projectId: number, parent: string, collection: string, live: LiveFilter): Promise<number>;
}

const NONE: ProjectTtls = new Map();

/** A source with no TTL anywhere (services built without one). */
export const noTtls: TtlSource = {
  cached: () => NONE,
  of: async () => NONE,
  latest: () => NONE,
  now: () => Date.now(),
  countLive: async () => 0,
};

/** The `LiveFilter` of `collection` at the source's now, or undefined when it does not expire. */
export function liveFilter(ttls: ProjectTtls, collection: string, source: TtlSource): LiveFilter | undefined {
  const field = ttls.get(collection);
  return field ? { field: [...field], now: source.now() } : undefined;
}

export interface TtlServiceDeps {
  store: TtlStore;
  /** Makes the index the sweep reads through (§15), and drops it with the setting. */
  indexes: Pick<IndexService, 'create' | 'drop' | 'list' | 'whenBuilt'>;
  bus: Bus;
  clock: Clock;
  onError?: (error: unknown, message: string) => void;
  /** How long a cached entry is used before it is read again; default 1 s. */
  revalidateMs?: number;
}

interface CachedTtls {
  ttls: Map<string, string[]>;
  loadedAt: number;
}

export class TtlService implements TtlSource {
  private readonly cache = new LRUCache<number, CachedTtls>({ max: 10_000 });
  private readonly loading = new Map<number, Promise<ProjectTtls>>();
  private readonly listening: ChannelListening;

  constructor(private readonly deps: TtlServiceDeps) {
    this.listening = new ChannelListening(
      TTL_CHANNEL,
      (message) => this.stale((JSON.parse(message) as { projectId: number }).projectId),
      () => {
        for (const entry of this.cache.values()) entry.loadedAt = Number.NEGATIVE_INFINITY;
      },
    );
  }

  now(): number {
    return this.deps.clock.now();
  }

  /**
   * Sets the collection's TTL field (200 `{collection, field}`; 422 for a bad field). The sweep's
   * index on the field (§15) is declared with it unless one whose first field it is exists.
   */
  async set(projectId: number, rawCollection: string, rawField: string): Promise<TtlView> {
    const collection = parseCollectionName(rawCollection);
    const field = parseTtlField(rawField);
    const name = field.join('__');
    const previous = (await this.deps.store.list(projectId)).find((ttl) => ttl.collection === collection);
    let indexId: number | null = null;
    if (previous && previous.field.join('__') === name) indexId = previous.indexId;
    else if (!(await this.hasIndexOn(projectId, collection, name))) {
      indexId = (await this.deps.indexes.create(projectId, { collection, fields: [{ field: name }] })).id;
    }
    const setting: StoredTtl = { projectId, collection, field, indexId };
    const replaced = await this.deps.store.set(setting);
    if (replaced?.indexId != null && replaced.indexId !== indexId) await this.dropIndex(projectId, replaced.indexId);
    await this.changed(projectId);
    return ttlView(setting);
  }

  /** The collection's setting; 404 `TTL not set`. */
  async get(projectId: number, rawCollection: string): Promise<TtlView> {
    const collection = parseCollectionName(rawCollection);
    const found = (await this.deps.store.list(projectId)).find((ttl) => ttl.collection === collection);
    if (!found) throw notFound(TTL_NOT_SET);
    return ttlView(found);
  }

  /** Every setting of the project (§8 export). */
  async list(projectId: number): Promise<TtlView[]> {
    return (await this.deps.store.list(projectId)).map(ttlView);
  }

  /** Removes the setting and the index made with it; 404 `TTL not set`. */
  async clear(projectId: number, rawCollection: string): Promise<{ deleted: string }> {
    const collection = parseCollectionName(rawCollection);
    const cleared = await this.deps.store.clear(projectId, collection);
    if (!cleared) throw notFound(TTL_NOT_SET);
    await this.changed(projectId);
    if (cleared.indexId !== null) await this.dropIndex(projectId, cleared.indexId);
    return { deleted: collection };
  }

  cached(projectId: number): ProjectTtls | undefined {
    const entry = this.cache.get(projectId);
    if (!entry || this.deps.clock.now() - entry.loadedAt >= (this.deps.revalidateMs ?? 1_000)) return undefined;
    return entry.ttls;
  }

  latest(projectId: number): ProjectTtls | undefined {
    const entry = this.cache.get(projectId);
    if (!entry || this.deps.clock.now() - entry.loadedAt >= (this.deps.revalidateMs ?? 1_000)) {
      this.of(projectId).catch((error: unknown) => this.deps.onError?.(error, 'reading TTL settings failed'));
    }
    return entry?.ttls;
  }

  countLive(projectId: number, parent: string, collection: string, live: LiveFilter): Promise<number> {
    return this.deps.store.countLiveChildren(projectId, parent, collection, live);
  }

  of(projectId: number): Promise<ProjectTtls> {
    const cached = this.cached(projectId);
    if (cached) return Promise.resolve(cached);
    let load = this.loading.get(projectId);
    if (!load) {
      const loadedAt = this.deps.clock.now();
      load = this.deps.store
        .list(projectId)
        .then((settings) => {
          const ttls = new Map(settings.map((ttl) => [ttl.collection, ttl.field]));
          this.cache.set(projectId, { ttls, loadedAt });
          return ttls;
        })
        .finally(() => this.loading.delete(projectId));
      this.loading.set(projectId, load);
    }
    return load;
  }

  /** Listens for other instances' changes. */
  listen(): Promise<void> {
    return this.listening.listen(this.deps.bus);
  }

  close(): Promise<void> {
    return this.listening.close();
  }

  private async hasIndexOn(projectId: number, collection: string, field: string): Promise<boolean> {
    const { indexes } = await this.deps.indexes.list(projectId);
    return indexes.some(
      (index) => index.collection === collection && index.fields[0]?.field === field && index.state !== 'failed',
    );
  }

  /**
   * Drops the index made with a setting, once the builds started here ended (a drop under a
   * running build fails on PostgreSQL). The setting has gone already: a failure leaves the index
   * for an admin to drop (§15), and is logged.
   */
  private async dropIndex(projectId: number, indexId: number): Promise<void> {
    try {
      await this.deps.indexes.whenBuilt();
      await this.deps.indexes.drop(projectId, indexId);
    } catch (error) {
      // An admin may have dropped it already.
      if (error instanceof AppError && error.code === 'not_found') return;
      this.deps.onError?.(error, `dropping index ${indexId} of a cleared TTL setting failed`);
    }
  }

  /** Marks the project's entry to be read again (kept for `latest` until then). */
  private stale(projectId: number): void {
    const entry = this.cache.get(projectId);
    if (entry) entry.loadedAt = Number.NEGATIVE_INFINITY;
  }

  private async changed(projectId: number): Promise<void> {
    this.stale(projectId);
    await this.deps.bus
      .publish(TTL_CHANNEL, JSON.stringify({ projectId }))
      .catch((error: unknown) => this.deps.onError?.(error, 'announcing a TTL change failed'));
  }
}

/** `mutations` with those of TTL collections seeing an expired stored document as absent (§17). */
export function expiringMutations(
  ttls: ProjectTtls,
  mutations: readonly DocumentMutation[],
  clock: Pick<TtlSource, 'now'>,
): readonly DocumentMutation[] {
  if (ttls.size === 0) return mutations;
  return mutations.map((mutation): DocumentMutation => {
    const field = ttls.get(mutation.path.collection);
    if (!field) return mutation;
    return {
      path: mutation.path,
      readsStored: true,
      ...(mutation.seen !== undefined ? { seen: mutation.seen } : {}),
      expired: (stored) => isExpired(stored.data, field, clock.now()),
      decide: (stored, commit) => mutation.decide(mutation.readsStored ? stored : null, commit),
    };
  });
}
