/** The export/import port (§8): engines read and write a whole project in one transaction. */

import type { DocumentCommitRecord } from '../documents/document-store.js';
import type { DocumentIndex } from '../documents/indexes.js';
import type { CommitEvents } from '../events/outbox-events.js';
import type { ChangeLogRetention, TreeCommit, TreeSet } from '../realtime/tree-store.js';
import type { RulesRevision } from '../rules/rules-store.js';
import type { Ruleset } from '../rules/ruleset.js';
import type { Webhook } from '../webhooks/webhook-store.js';
import type { ImportedIndex, ProjectExport } from './export-format.js';
import type { ImportFound, ImportLookup, ImportRows } from './import-plan.js';

/** A whole project's data in the §8 format, read and written in one transaction each. */
export interface TransferStore {
  /** Everything of the project, in a stable order (paths, ids, slugs); webhooks with their secrets. */
  exportProject(projectId: number): Promise<ProjectExport>;
  /**
   * Loads a checked file in one transaction (§8): looks up what `request.lookup` names, writes the
   * rows `request.plan` returns for it (or, when it throws, nothing), then `tree` as one tree write
   * (none when empty), `rules` as the ruleset's next revision (null: unchanged) and `indexes`
   * declared in state `building` unless the project has them (the caller builds them).
   */
  importProject(projectId: number, request: ImportRequest): Promise<ImportCommit>;
}

/** An import as core planned it, for the engine to run in one transaction. */
export interface ImportRequest {
  lookup: ImportLookup;
  /** Core's conflict checks and rows (`planImport`), from what the engine found. */
  plan(found: ImportFound): ImportRows;
  /** The file's realtime tree as child sets at the root. */
  tree: TreeSet[];
  rules: Ruleset | null;
  indexes: ImportedIndex[];
  retention: ChangeLogRetention;
  now: number;
  /** The import's events (§16) from what it committed, recorded in its transaction; absent: none. */
  events?: (commit: Pick<ImportCommit, 'documents' | 'tree'>) => CommitEvents;
}

/** What an import committed that others must hear of. */
export interface ImportCommit {
  /** The commit of the project's documents (null when the file had none). */
  documents: DocumentCommitRecord | null;
  /** The tree write (null when the file had no realtime paths). */
  tree: TreeCommit | null;
  /** The ruleset revision saved (null when the file left the ruleset unchanged). */
  rules: RulesRevision | null;
  /** The index declarations made (state `building`); those the project had are not among them. */
  indexes: DocumentIndex[];
  /** The webhooks written (§16), in the order of the plan's rows. */
  webhooks: Webhook[];
}
