/**
 * Declared indexes (§15): the admin operations, the background builds, and the per-process cache
 * of each project's indexes that queries plan with. A change here is in force here at once and
 * announced on the bus channel `indexes`; other instances drop their entry on the notice, and an
 * entry is reloaded after 5 s in case a notice never came.
 */
import { LRUCache } from 'lru-cache';
import type { Bus } from '../bus.js';
import type { Clock } from '../clock.js';
import { AppError, conflict, notFound } from '../errors.js';
import { parseCollectionName } from '../paths.js';
import type { IndexStore } from './index-store.js';
import { type DocumentIndex, type IndexView, indexView, MAX_INDEXES_PER_PROJECT, parseIndexFields } from './indexes.js';

/** The bus channel of index changes: `{"projectId": 7}` per create, build end and drop. */
export const INDEXES_CHANNEL = 'indexes';

/** A declaration as the admin API and §8 take it. */
export interface IndexDeclaration {
  collection: string;
  fields: { field: string; order?: 'asc' | 'desc' | undefined }[];
}

/** Where queries find the indexes of a collection. */
export interface IndexSource {
  /** The project's indexes (every state: the planner uses the ready ones). */
  forProject(projectId: number): Promise<readonly DocumentIndex[]>;
}

export interface IndexServiceDeps {
  store: IndexStore;
  bus: Bus;
  clock: Clock;
  /** Told about failed builds and announcements. */
  onError?: (error: unknown, message: string) => void;
  /** How long a cached list is used before it is read again; default 5 s. */
  revalidateMs?: number;
}

interface CachedIndexes {
  indexes: DocumentIndex[];
  loadedAt: number;
}

export class IndexService implements IndexSource {
  private readonly cache = new LRUCache<number, CachedIndexes>({ max: 10_000 });
  private readonly loading = new Map<number, Promise<DocumentIndex[]>>();
  /** Builds started here, by index id; they run one after another (`queue`). */
  private readonly builds = new Map<number, Promise<void>>();
  private queue: Promise<void> = Promise.resolve();
  /** The listing of `resume`, awaited by `close` so that storage is not closed under it. */
  private resuming: Promise<unknown> = Promise.resolve();
  private stopListening: (() => Promise<void>) | null = null;

  constructor(private readonly deps: IndexServiceDeps) {}

  /**
   * Declares an index and starts building it (202 `building`); 422 for bad fields, 409 for a
   * declaration that exists or a project at its limit.
   */
  async create(projectId: number, declaration: IndexDeclaration): Promise<IndexView> {
    const fields = parseIndexFields(declaration.fields);
    const collection = parseCollectionName(declaration.collection);
    const existing = await this.deps.store.list(projectId);
    if (existing.length >= MAX_INDEXES_PER_PROJECT) {
      throw new AppError('conflict', `Too many indexes (max ${MAX_INDEXES_PER_PROJECT} per project)`);
    }
    const index = await this.deps.store.create(projectId, collection, fields);
    if (!index) throw conflict('Index already exists');
    await this.changed(projectId);
    this.startBuild(index);
    return indexView(index);
  }

  /** Starts building declarations made elsewhere (§8 import), announcing them as a create does. */
  async startBuilds(projectId: number, indexes: readonly DocumentIndex[]): Promise<void> {
    if (indexes.length === 0) return;
    await this.changed(projectId);
    for (const index of indexes) this.startBuild(index);
  }

  async list(projectId: number): Promise<{ indexes: IndexView[] }> {
    return { indexes: (await this.deps.store.list(projectId)).map(indexView) };
  }

  /** Drops an index; 404 `Index not found` when the project has none of that id. */
  async drop(projectId: number, id: number): Promise<{ deleted: number }> {
    // Out of the cache before the database index goes, so no query here plans with it after.
    this.cache.delete(projectId);
    const dropped = await this.deps.store.drop(projectId, id);
    await this.changed(projectId);
    if (!dropped) throw notFound('Index not found');
    return { deleted: id };
  }

  async forProject(projectId: number): Promise<readonly DocumentIndex[]> {
    const cached = this.cache.get(projectId);
    if (cached && this.deps.clock.now() - cached.loadedAt < (this.deps.revalidateMs ?? 5_000)) return cached.indexes;
    let load = this.loading.get(projectId);
    if (!load) {
      const loadedAt = this.deps.clock.now();
      load = this.deps.store.list(projectId).then((indexes) => {
        this.cache.set(projectId, { indexes, loadedAt });
        // Recovery on access: a declaration nobody here builds may be one a process that died left
        // (a live builder elsewhere keeps it, and the store then leaves it alone).
        for (const index of indexes) if (index.state === 'building') this.startBuild(index);
        return indexes;
      });
      const loading = load.finally(() => this.loading.delete(projectId));
      this.loading.set(projectId, loading);
      load = loading;
    }
    return load;
  }

  /** Resolves when every build started here has ended (tests, import). */
  async whenBuilt(): Promise<void> {
    while (this.builds.size > 0) await Promise.allSettled([...this.builds.values()]);
  }

  /**
   * Builds again every declaration left `building` (at start: a process that died mid-build left
   * it so); those another live instance is building are left to it.
   */
  async resume(): Promise<number> {
    const listing = this.deps.store.building();
    this.resuming = listing.catch(() => undefined);
    const stuck = await listing;
    for (const index of stuck) this.startBuild(index);
    return stuck.length;
  }

  /** Listens for other instances' changes. */
  async listen(): Promise<void> {
    this.stopListening = await this.deps.bus.subscribe(
      INDEXES_CHANNEL,
      (message) => {
        const { projectId } = JSON.parse(message) as { projectId: number };
        this.cache.delete(projectId);
      },
      () => this.cache.clear(),
    );
  }

  async close(): Promise<void> {
    await this.stopListening?.();
    this.stopListening = null;
    await this.resuming;
    await this.whenBuilt();
  }

  private startBuild(index: DocumentIndex): void {
    if (this.builds.has(index.id)) return;
    // After the builds before it, and at least on the next turn: on SQLite a build holds the
    // thread (the 202 goes out first), and on PostgreSQL two builds of one table deadlock.
    const build = this.queue
      .then(() => new Promise<void>((resolve) => setTimeout(resolve, 0)))
      .then(() => this.deps.store.build(index))
      .then(
        // `building`: another instance builds it, and tells everyone when it is done.
        (state) => (state === 'building' ? undefined : this.changed(index.projectId)),
        async (error: unknown) => {
          this.deps.onError?.(error, `building index ${index.id} failed`);
          await this.changed(index.projectId);
        },
      )
      .finally(() => this.builds.delete(index.id));
    this.builds.set(index.id, build);
    this.queue = build;
  }

  private async changed(projectId: number): Promise<void> {
    this.cache.delete(projectId);
    await this.deps.bus
      .publish(INDEXES_CHANNEL, JSON.stringify({ projectId }))
      .catch((error: unknown) => this.deps.onError?.(error, 'announcing an index change failed'));
  }
}
