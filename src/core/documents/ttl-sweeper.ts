/**
 * The TTL sweep (§17): deletes expired documents as ordinary deletes (a version each, listeners
 * see them `removed`, a `document.written` event with `deleted: true` where the project records
 * events), reading only expired documents through the index the TTL setting declared (§15). One
 * instance of the cluster sweeps at a time: the one holding the lease row, renewed each round.
 *
 * The index orders a field's values as §2 does: numbers by value, then strings by code point. So
 * numbers expired at `now` are one range (`field <= now`). An ISO time reads as local time plus
 * its offset, at most 23:59 ahead of UTC, so every ISO time expired at `now` lies in the string
 * range from '0' to `now` + 23:59 as text; the sweep walks that range in batches and core
 * decides each document (strings there that are not times, or not yet expired, are skipped).
 */
import type { Clock } from '../clock.js';
import { AppError, notFound } from '../errors.js';
import { fieldValue } from '../listeners/document-matcher.js';
import type { DocumentPath } from '../paths.js';
import type { OrderBy, Scalar, WhereClause } from '../where.js';
import { parseDocumentJson } from './document-service.js';
import type { DocumentMutation, DocumentStore } from './document-store.js';
import type { DocumentWriter } from './document-write-service.js';
import { DOCUMENT_NOT_FOUND } from './document-writes.js';
import type { IndexSource } from './index-service.js';
import { chooseIndex, type DocumentIndex } from './indexes.js';
import { isExpired, MAX_OFFSET_MS } from './ttl.js';
import type { StoredTtl, TtlStore } from './ttl-store.js';

export interface TtlSweeperDeps {
  ttl: Pick<TtlStore, 'all' | 'claimSweep' | 'releaseSweep'>;
  documents: Pick<DocumentStore, 'query'>;
  indexes: IndexSource;
  /** Where the deletes are committed and announced (`DocumentCommits`). */
  commits: DocumentWriter;
  clock: Clock;
  /** This instance's name on the lease. */
  owner: string;
  log?: (error: unknown, message: string) => void;
  /** Time between rounds; default 10 s (a document goes within that and a lapsed lease's 30 s of its time). */
  intervalMs?: number;
  /** How long a round's lease lasts; default 30 s. */
  leaseMs?: number;
  /** Documents read and deleted at a time; default 200. */
  batch?: number;
}

const clause = (field: string[], lookup: 'lte' | 'gte' | 'gt' | 'lt', value: Scalar): WhereClause => ({
  field,
  lookup,
  value,
  text: String(value),
  values: [],
});

/** A stored document's path as core's `DocumentPath` (stored paths are normalized already). */
function documentPathOf(path: string): DocumentPath {
  const last = path.lastIndexOf('/');
  const before = path.lastIndexOf('/', last - 1);
  return {
    path,
    parent: before < 0 ? '' : path.slice(0, before),
    collection: path.slice(before + 1, last),
    name: path.slice(last + 1),
  };
}

export class TtlSweeper {
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<number> = Promise.resolve(0);

  constructor(private readonly deps: TtlSweeperDeps) {}

  /** Sweeps every `intervalMs` until `stop`. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.sweep().catch((error: unknown) => this.deps.log?.(error, 'TTL sweep failed'));
    }, this.deps.intervalMs ?? 10_000);
    this.timer.unref();
  }

  /** Stops the rounds, waits for the running one and gives the lease up for another instance. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.round.catch(() => undefined);
    await this.deps.ttl.releaseSweep(this.deps.owner).catch(() => undefined);
  }

  /** One round (after the one running, if any): resolves to the documents it deleted; 0 without the lease. */
  sweep(): Promise<number> {
    const next = this.round.catch(() => 0).then(() => this.sweepRound());
    this.round = next;
    return next;
  }

  private async sweepRound(): Promise<number> {
    // Read first: a database without TTL settings is not written to every round for the lease.
    const settings = await this.deps.ttl.all();
    if (settings.length === 0) return 0;
    const now = this.deps.clock.now();
    const claimed = await this.deps.ttl.claimSweep(this.deps.owner, now, now + (this.deps.leaseMs ?? 30_000));
    if (!claimed) return 0;
    let deleted = 0;
    for (const setting of settings) {
      try {
        deleted += await this.sweepCollection(setting);
      } catch (error) {
        this.deps.log?.(error, `TTL sweep of collection '${setting.collection}' (project ${setting.projectId}) failed`);
      }
    }
    return deleted;
  }

  private async sweepCollection(setting: StoredTtl): Promise<number> {
    const indexes = (await this.deps.indexes.forProject(setting.projectId)).filter(
      (index) => index.collection === setting.collection,
    );
    const now = this.deps.clock.now();
    const { field } = setting;
    // Numbers: every one in range has expired.
    let deleted = await this.sweepRange(setting, indexes, () => [clause(field, 'lte', now)]);
    // Strings: the range holds the expired ISO times and others, skipped; the walk moves past them.
    const end = new Date(Math.min(now + MAX_OFFSET_MS + 1000, 253_402_300_799_999)).toISOString().slice(0, 19);
    deleted += await this.sweepRange(setting, indexes, (after) => [
      after === undefined ? clause(field, 'gte', '0') : clause(field, 'gt', after),
      clause(field, 'lt', end),
    ]);
    return deleted;
  }

  /**
   * Reads the range in the index's order, `batch` documents at a time, and deletes the expired
   * ones. After a batch with documents left in place, the next starts after its last value.
   */
  private async sweepRange(
    setting: StoredTtl,
    indexes: readonly DocumentIndex[],
    range: (after: string | undefined) => WhereClause[],
  ): Promise<number> {
    const batch = this.deps.batch ?? 200;
    const orderBy: OrderBy = { field: setting.field, descending: false };
    let after: string | undefined;
    let deleted = 0;
    for (;;) {
      const where = range(after);
      const plan = chooseIndex(indexes, where, orderBy);
      // Without a ready index on the field the sweep waits for it: it never reads the whole collection.
      if (!plan) return deleted;
      const { documents } = await this.deps.documents.query(setting.projectId, {
        collection: setting.collection,
        where,
        orderBy,
        index: plan,
        limit: batch,
      });
      const records = documents.map(parseDocumentJson);
      const now = this.deps.clock.now();
      const expired = records.filter((record) => isExpired(record.data, setting.field, now));
      const gone = await this.deleteAll(
        setting,
        expired.map((record) => record.path),
      );
      deleted += gone;
      if (documents.length < batch) return deleted;
      if (gone < records.length) {
        // Every value read lies after `after`, so the walk moves on. Numbers left in place are
        // documents written again meanwhile (or failed deletes): the next round sees them.
        const last = fieldValue(records[records.length - 1]?.data ?? {}, setting.field);
        if (typeof last !== 'string') return deleted;
        after = last;
      }
    }
  }

  /** Deletes each document that is still expired when its commit decides; resolves to how many went. */
  private async deleteAll(setting: StoredTtl, paths: readonly string[]): Promise<number> {
    const outcomes = await Promise.allSettled(
      paths.map((path) => this.deps.commits.apply(setting.projectId, [this.sweepMutation(path, setting.field)])),
    );
    let deleted = 0;
    for (const outcome of outcomes) {
      if (outcome.status === 'fulfilled') deleted++;
      else if (!(outcome.reason instanceof AppError && outcome.reason.code === 'not_found')) {
        this.deps.log?.(outcome.reason, `TTL sweep: deleting a document of '${setting.collection}' failed`);
      }
    }
    return deleted;
  }

  /** Deletes the document if it is still expired (a write may have given it a later time meanwhile). */
  private sweepMutation(path: string, field: readonly string[]): DocumentMutation {
    const clock = this.deps.clock;
    return {
      path: documentPathOf(path),
      readsStored: true,
      decide(stored) {
        if (!stored || !isExpired(stored.data, field, clock.now())) throw notFound(DOCUMENT_NOT_FOUND);
        return { kind: 'delete' };
      },
    };
  }
}
