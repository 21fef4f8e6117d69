import type { AccountStore } from '../auth/account-store.js';
import type { Clock } from '../clock.js';
import type { DocumentCommits } from '../documents/document-commits.js';
import type { IndexService } from '../documents/index-service.js';
import { indexSignature, MAX_INDEXES_PER_PROJECT } from '../documents/indexes.js';
import { collectionOf, isExpired } from '../documents/ttl.js';
import type { TtlService } from '../documents/ttl-service.js';
import { AppError, notFound } from '../errors.js';
import { type EventRecord, type EventRecording, recordOf } from '../events/event-recording.js';
import { type CommitEvents, documentEvents, treeEvent } from '../events/outbox-events.js';
import { isJsonObject, type JsonObject } from '../json.js';
import type { LeaderboardService } from '../leaderboards/leaderboard-service.js';
import type { PathLimits } from '../paths.js';
import type { TreeService } from '../realtime/tree-service.js';
import type { TreeSet } from '../realtime/tree-store.js';
import { planPatch } from '../realtime/tree-write.js';
import type { RulesService } from '../rules/rules-service.js';
import {
  badItem,
  type ImportedIndex,
  importedIndexes,
  importedRules,
  type ProjectExport,
  parseProjectExport,
} from './export-format.js';
import { type ImportRows, importLookup, planImport } from './import-plan.js';
import type { ImportCommit, TransferStore } from './transfer-store.js';
import { importedTtls } from './ttl-transfer.js';

/** What an import loaded. */
export interface ImportSummary {
  documents: number;
  users: number;
  leaderboards: number;
  entries: number;
  realtime_paths: number;
  /** Whether the file set the ruleset (a new revision). */
  rules: boolean;
  /** Index declarations the project did not have, now building (§15). */
  indexes: number;
  /** Webhooks created or updated (§16). */
  webhooks: number;
  /** The webhooks the import created without a secret in the file: each got a fresh one, shown only here. */
  webhook_secrets: { id: number; url: string; secret: string }[];
}

/** How to export. */
export interface ExportOptions {
  /** Include the webhooks' signing secrets (§16); default: left out. */
  withSecrets?: boolean;
}

/**
 * An import's events (§16): `document.written` for each document it wrote, and one
 * `realtime.written` of the file's tree (a PATCH of the root: every top-level key it set).
 */
function importEvents(
  projectId: number,
  record: EventRecord,
  time: number,
  commit: Pick<ImportCommit, 'documents' | 'tree'>,
): CommitEvents {
  const events = () => {
    const built = commit.documents ? documentEvents(projectId, commit.documents, time) : [];
    if (commit.tree) built.push(treeEvent(projectId, { path: '', patch: true }, commit.tree, time));
    return built;
  };
  return { projectId, record, time, events };
}

/** `cds export` and `cds import` (§8): the format's rules here, the one transaction in each engine. */
export class TransferService {
  constructor(
    private readonly deps: {
      store: TransferStore;
      accounts: Pick<AccountStore, 'getProject'>;
      tree: Pick<TreeService, 'retention' | 'announce'>;
      /** Announces the import's commit of documents to the listeners of every instance (§10). */
      documents: Pick<DocumentCommits, 'committed'>;
      /** Told which boards the import replaced, so that no instance serves them from its board cache. */
      leaderboards: Pick<LeaderboardService, 'boardsChanged'>;
      /** Told of the ruleset revision an import saved: in force here at once, announced to the others. */
      rules: Pick<RulesService, 'changed'>;
      /** Where the file's index declarations are counted against the limit and, once committed, built. */
      indexes: Pick<IndexService, 'list' | 'startBuilds'>;
      /** Where the file's TTL settings are read from and, once the import committed, set (§17). */
      ttl?: Pick<TtlService, 'list' | 'set'>;
      limits: PathLimits;
      clock: Clock;
      /** Which projects record their events (§16); none by default. */
      recording?: EventRecording;
    },
  ) {}

  /** Everything of a project in the §8 format; webhooks without their secrets unless asked. */
  async exportProject(projectId: number, options: ExportOptions = {}): Promise<ProjectExport> {
    await this.requireProject(projectId);
    const file = { ...(await this.deps.store.exportProject(projectId)) };
    if (this.deps.ttl) {
      file.ttl = await this.deps.ttl.list(projectId);
      // An expired document (§17) is absent to the export as to every read.
      const fields = new Map(file.ttl.map((ttl) => [ttl.collection, ttl.field.split('__')]));
      const now = this.deps.clock.now();
      file.documents = file.documents.filter((document) => {
        const field = fields.get(collectionOf(document.path));
        return !field || !isExpired(document.data as JsonObject, field, now);
      });
    }
    if (options.withSecrets) return file;
    return { ...file, webhooks: (file.webhooks ?? []).map(({ secret: _left, ...webhook }) => webhook) };
  }

  /** Checks a parsed JSON file completely, then loads it in one transaction (all or nothing). */
  async importProject(projectId: number, input: unknown): Promise<ImportSummary> {
    await this.requireProject(projectId);
    const file = parseProjectExport(input, this.deps.limits);
    const tree = this.treeSets(file);
    const rules = importedRules(file);
    const indexes = importedIndexes(file);
    const ttls = importedTtls(file);
    await this.checkIndexLimit(projectId, indexes, ttls);
    const now = this.deps.clock.now();
    // The plan is made inside the engine's transaction; the summary reads which secrets it made.
    const planned: { rows?: ImportRows } = {};
    const commit = await this.deps.store.importProject(projectId, {
      lookup: importLookup(file),
      plan: (found) => {
        planned.rows = planImport(file, found, now);
        return planned.rows;
      },
      tree,
      rules,
      indexes,
      retention: this.deps.tree.retention,
      now,
      events: (done) => importEvents(projectId, recordOf(this.deps.recording, projectId), now, done),
    });
    await this.deps.leaderboards.boardsChanged(
      projectId,
      file.leaderboards.map((board) => board.slug),
    );
    if (commit.documents) this.deps.documents.committed(projectId, [commit.documents]);
    if (commit.tree) await this.deps.tree.announce(projectId, commit.tree);
    if (commit.rules) await this.deps.rules.changed(projectId, commit.rules);
    // Built as a POST builds them: in the background, queries using them once `ready`.
    await this.deps.indexes.startBuilds(projectId, commit.indexes);
    for (const { collection, field } of ttls) await this.deps.ttl?.set(projectId, collection, field);
    return {
      documents: file.documents.length,
      users: file.users.length,
      leaderboards: file.leaderboards.length,
      entries: file.leaderboards.reduce((n, board) => n + board.entries.length, 0),
      realtime_paths: tree.length,
      rules: rules !== null,
      indexes: commit.indexes.length,
      webhooks: commit.webhooks.length,
      webhook_secrets: commit.webhooks.flatMap((webhook, i) =>
        planned.rows?.webhooks[i]?.freshSecret ? [{ id: webhook.id, url: webhook.url, secret: webhook.secret }] : [],
      ),
    };
  }

  /**
   * A project may not end with more indexes than a POST would let it have, counting those its TTL
   * settings declare (a setting's sweep needs an index led by its field, made when none is there):
   * checked before the transaction, so that the settings, set after it, cannot be refused then.
   */
  private async checkIndexLimit(
    projectId: number,
    indexes: ImportedIndex[],
    ttls: readonly { collection: string; field: string }[],
  ): Promise<void> {
    if (indexes.length === 0 && ttls.length === 0) return;
    const existing = (await this.deps.indexes.list(projectId)).indexes;
    const signatures = new Set(existing.map((index) => JSON.stringify([index.collection, index.fields])));
    const added = indexes.filter((index) => !signatures.has(indexSignature(index.collection, index.fields))).length;
    if (existing.length + added > MAX_INDEXES_PER_PROJECT) {
      throw badItem('indexes', `the project would have more than ${MAX_INDEXES_PER_PROJECT} indexes`);
    }
    const led = new Set([
      ...existing.map((index) => `${index.collection}/${index.fields[0]?.field}`),
      ...indexes.map((index) => `${index.collection}/${index.fields[0]?.field.join('__')}`),
    ]);
    const forTtls = ttls.filter((ttl) => !led.has(`${ttl.collection}/${ttl.field}`)).length;
    if (existing.length + added + forTtls > MAX_INDEXES_PER_PROJECT) {
      throw badItem('ttl', `its sweep indexes would give the project more than ${MAX_INDEXES_PER_PROJECT} indexes`);
    }
  }

  /** The realtime tree as a PATCH at the root: each top-level key's subtree is overwritten. */
  private treeSets(file: ProjectExport): TreeSet[] {
    if (!isJsonObject(file.realtime)) return [];
    try {
      return planPatch('', file.realtime as JsonObject, this.deps.limits);
    } catch (error) {
      throw badItem('realtime', error instanceof AppError ? error.message : 'is invalid');
    }
  }

  private async requireProject(projectId: number): Promise<void> {
    if (!(await this.deps.accounts.getProject(projectId))) throw notFound('Project not found');
  }
}
