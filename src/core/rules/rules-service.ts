/**
 * Managing a project's §9 ruleset (get, put, revisions) and serving it compiled to the services
 * that check rules, current on every instance.
 */
import { LRUCache } from 'lru-cache';
import { type Bus, ChannelListening } from '../bus.js';
import type { Clock } from '../clock.js';
import { parseJsonObject } from '../json.js';
import { CompiledRuleset, OPEN_RULES } from './compiled-ruleset.js';
import type { RulesSource } from './rules-source.js';
import { KEPT_REVISIONS, type RulesRevision, type RulesStore } from './rules-store.js';
import { OPEN_RULESET, parseRuleset, type Ruleset } from './ruleset.js';

/** The bus channel of ruleset changes: `{"projectId": 7, "revision": 3}` per accepted save. */
export const RULES_CHANNEL = 'rules';

/** A ruleset as the admin API shows it; revision 0 (`updated_at` null) is the open ruleset never set. */
export interface RulesView {
  rules: Ruleset;
  revision: number;
  /** ISO 8601 UTC with milliseconds; null at revision 0. */
  updated_at: string | null;
}

/** A saved revision as the admin API shows it. */
export interface RevisionView extends RulesView {
  updated_at: string;
}

/** What the rules service needs. */
export interface RulesServiceDeps {
  store: RulesStore;
  clock: Clock;
  bus: Bus;
  /** Told about failed publishes and reloads (the change stands; others catch up by revalidation). */
  onError?: (error: unknown) => void;
  /** How long a cached ruleset is used before its revision is checked in the database; default 5 s. */
  revalidateMs?: number;
}

interface CachedRules {
  revision: number;
  compiled: CompiledRuleset;
  /** When the database last confirmed `revision` (clock time). */
  checkedAt: number;
}

const DEFAULT_REVALIDATE_MS = 5_000;
const MAX_PROJECTS = 10_000;

/** The view of a saved revision. */
export function viewOf(saved: RulesRevision): RevisionView {
  return { rules: saved.rules, revision: saved.revision, updated_at: new Date(saved.updatedAt).toISOString() };
}

/** The view of a project that never set rules. */
const NEVER_SET: RulesView = { rules: OPEN_RULESET, revision: 0, updated_at: null };

/**
 * Each project's ruleset, compiled once per revision and cached per process. A save here is in
 * force here at once and announced on `rules`; other instances reload on the notice, reload
 * every cached project when the bus says notices may have been lost, and check a cached
 * revision against the database at most every `revalidateMs` in case a notice never came.
 */
export class RulesService implements RulesSource {
  private readonly cache = new LRUCache<number, CachedRules>({ max: MAX_PROJECTS });
  /** Loads in flight per project, shared by concurrent callers. */
  private readonly loading = new Map<number, Promise<CachedRules>>();
  private readonly listeners = new Set<(projectId: number) => void>();
  private readonly notices = new ChannelListening(
    RULES_CHANNEL,
    (message) => this.onNotice(message),
    () => this.reloadAll(),
  );

  constructor(private readonly deps: RulesServiceDeps) {}

  /** The current ruleset of a project (`revision` 0 and the open ruleset when never set). */
  async get(projectId: number): Promise<RulesView> {
    const current = await this.deps.store.current(projectId);
    return current ? viewOf(current) : NEVER_SET;
  }

  /** Validates and saves `value` as the next revision (identical rules too); 400 `<where>: <problem>` when invalid. */
  async put(projectId: number, value: unknown): Promise<RevisionView> {
    const rules = parseRuleset(value);
    const saved = await this.deps.store.save(projectId, rules, this.deps.clock.now());
    await this.changed(projectId, saved);
    return viewOf(saved);
  }

  /** The kept revisions, newest first (revision 0 is never listed). */
  async revisions(projectId: number): Promise<RevisionView[]> {
    return (await this.deps.store.revisions(projectId, KEPT_REVISIONS)).map(viewOf);
  }

  async compiled(projectId: number): Promise<CompiledRuleset> {
    return (
      this.fresh(projectId) ?? (await this.load(projectId, this.cache.has(projectId) ? 'revalidate' : 'read')).compiled
    );
  }

  fresh(projectId: number): CompiledRuleset | undefined {
    const cached = this.cache.get(projectId);
    return cached && this.deps.clock.now() - cached.checkedAt < this.revalidateMs ? cached.compiled : undefined;
  }

  onChange(listener: (projectId: number) => void): () => void {
    const own = (projectId: number) => listener(projectId);
    this.listeners.add(own);
    return () => this.listeners.delete(own);
  }

  /** Takes in a revision saved in this process (a PUT, an import): in force here at once, listeners and other instances told. */
  async changed(projectId: number, saved: RulesRevision): Promise<void> {
    this.remember(projectId, saved.revision, new CompiledRuleset(saved.rules));
    this.notify(projectId);
    try {
      await this.deps.bus.publish(RULES_CHANNEL, JSON.stringify({ projectId, revision: saved.revision }));
    } catch (error) {
      this.deps.onError?.(error);
    }
  }

  /** Starts following other instances' changes. */
  listen(): Promise<void> {
    return this.notices.listen(this.deps.bus);
  }

  /** Stops following. */
  close(): Promise<void> {
    return this.notices.close();
  }

  private get revalidateMs(): number {
    return this.deps.revalidateMs ?? DEFAULT_REVALIDATE_MS;
  }

  /**
   * Reads the project's ruleset once for every concurrent caller. `revalidate` first reads only
   * the revision number and keeps the compiled ruleset when it is still current.
   */
  private load(projectId: number, mode: 'read' | 'revalidate'): Promise<CachedRules> {
    const inFlight = this.loading.get(projectId);
    if (inFlight) return inFlight;
    const load = this.read(projectId, mode).finally(() => {
      if (this.loading.get(projectId) === load) this.loading.delete(projectId);
    });
    this.loading.set(projectId, load);
    return load;
  }

  private async read(projectId: number, mode: 'read' | 'revalidate'): Promise<CachedRules> {
    const startedAt = this.deps.clock.now();
    const cached = this.cache.get(projectId);
    if (mode === 'revalidate' && cached) {
      const revision = await this.deps.store.currentRevision(projectId);
      if (revision === cached.revision) {
        cached.checkedAt = startedAt;
        return cached;
      }
    }
    const current = await this.deps.store.current(projectId);
    const revision = current?.revision ?? 0;
    const known = this.cache.get(projectId);
    // Compile once per revision: a newer entry (a save here meanwhile) or the same revision is kept.
    if (known && known.revision >= revision) {
      known.checkedAt = Math.max(known.checkedAt, startedAt);
      return known;
    }
    const entry = this.remember(projectId, revision, current ? new CompiledRuleset(current.rules) : OPEN_RULES);
    entry.checkedAt = startedAt;
    if (known) this.notify(projectId);
    return entry;
  }

  /** Caches `compiled` as the project's ruleset unless a newer revision is cached already. */
  private remember(projectId: number, revision: number, compiled: CompiledRuleset): CachedRules {
    const known = this.cache.get(projectId);
    if (known && known.revision >= revision) return known;
    const entry: CachedRules = { revision, compiled, checkedAt: this.deps.clock.now() };
    this.cache.set(projectId, entry);
    return entry;
  }

  private notify(projectId: number): void {
    for (const listener of this.listeners) {
      try {
        listener(projectId);
      } catch (error) {
        this.deps.onError?.(error);
      }
    }
  }

  private onNotice(message: string): void {
    const notice = parseJsonObject(message);
    const projectId = notice?.projectId;
    const revision = notice?.revision;
    if (typeof projectId !== 'number' || typeof revision !== 'number') return;
    const cached = this.cache.get(projectId);
    if (cached && cached.revision >= revision) return; // our own save, or an older notice
    if (!cached) {
      this.notify(projectId);
      return;
    }
    this.reload(projectId);
  }

  /**
   * Re-reads a cached project now, not sharing a load that may have read before the change. The
   * entry counts as stale meanwhile, so callers wait for the new revision instead of using the old.
   */
  private reload(projectId: number): void {
    const cached = this.cache.get(projectId);
    if (cached) cached.checkedAt = Number.NEGATIVE_INFINITY;
    this.loading.delete(projectId);
    this.load(projectId, 'read').catch((error: unknown) => this.deps.onError?.(error));
  }

  private reloadAll(): void {
    for (const projectId of [...this.cache.keys()]) this.reload(projectId);
  }
}
