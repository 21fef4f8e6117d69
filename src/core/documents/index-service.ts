/**
 * Declared indexes (§15): the admin operations, the background builds, and the per-process cache
 * of each project's indexes that queries plan with. A change here is in force here at once and
 * announced on the bus channel `indexes`; other instances drop their entry on the notice, and an
 * entry is reloaded after 5 s in case a notice never came.
 */
import { LRUCache } from 'lru-cache';
import type { Clock } from '../clock.js';
import { AppError, conflict, notFound } from '../errors.js';
import { parseCollectionName } from '../paths.js';
import type { Bus, IndexStore } from '../ports.js';
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
  private readonly builds = new Set<Promise<void>>();
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
    while (this.builds.size > 0) await Promise.allSettled([...this.builds]);
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
    await this.whenBuilt();
  }

  private startBuild(index: DocumentIndex): void {
    // On the next turn: on SQLite the build holds the thread, and the 202 goes out first.
    const build = new Promise<void>((resolve) => setTimeout(resolve, 0))
      .then(() => this.deps.store.build(index))
      .catch((error: unknown) => this.deps.onError?.(error, `building index ${index.id} failed`))
      .then(() => this.changed(index.projectId))
      .finally(() => this.builds.delete(build));
    this.builds.add(build);
  }

  private async changed(projectId: number): Promise<void> {
    this.cache.delete(projectId);
    await this.deps.bus
      .publish(INDEXES_CHANNEL, JSON.stringify({ projectId }))
      .catch((error: unknown) => this.deps.onError?.(error, 'announcing an index change failed'));
  }
}
