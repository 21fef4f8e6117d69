/**
 * The §8 export format as a TypeBox schema, and its parsing: shape first (the schema), then the
 * rules the schema cannot say (unique paths and ids, leaderboard definitions, entries in known
 * leagues). Each failure names the first bad item, e.g. `leaderboards[0].entries[3].league`.
 */
import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import {
  type DocumentIndex,
  fieldView,
  type IndexField,
  indexSignature,
  MAX_INDEXES_PER_PROJECT,
  parseIndexFields,
} from '../documents/indexes.js';
import { AppError } from '../errors.js';
import { isJsonObject, type JsonValue, MAX_JSON_DEPTH, unstorableReason } from '../json.js';
import {
  BoardFieldsSchema,
  definitionOf,
  LeagueRecordSchema,
  RewardRecordSchema,
  TournamentFieldsSchema,
} from '../leaderboards/board-record.js';
import { definitionProblem } from '../leaderboards/leaderboard-definition.js';
import { Nullable } from '../nullable-schema.js';
import { type PathLimits, parseCollectionName, parseDocumentPath } from '../paths.js';
import { OPEN_RULESET, parseRuleset, type Ruleset } from '../rules/ruleset.js';
import { webhookProblems } from '../webhooks/webhook-events.js';
import { isWebhookSecret } from '../webhooks/webhook-signing.js';
import { importedTtls } from './ttl-transfer.js';

const Iso = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$' });

/** A league of a file: a record whose integers are bounded, as every input's are. */
export const ExportLeagueSchema = Type.Object({
  ...LeagueRecordSchema.properties,
  order: Type.Integer({ minimum: 0 }),
  promote_top: Nullable(Type.Integer({ minimum: 0 })),
  demote_bottom: Nullable(Type.Integer({ minimum: 0 })),
});

/** A reward of a file: a record whose ranks are bounded. */
export const ExportRewardSchema = Type.Object({
  ...RewardRecordSchema.properties,
  rank_from: Type.Integer({ minimum: 1 }),
  rank_to: Type.Integer({ minimum: 1 }),
});

export const ExportLeaderboardSchema = Type.Object({
  ...BoardFieldsSchema.properties,
  leagues: Type.Array(ExportLeagueSchema),
  rewards: Type.Array(ExportRewardSchema),
  entries: Type.Array(
    Type.Object({
      user_id: Type.Integer({ minimum: 1 }),
      stat_value: Type.Number(),
      league: Type.String(),
      updated_at: Iso,
    }),
  ),
  assignments: Type.Array(Type.Object({ user_id: Type.Integer({ minimum: 1 }), league: Type.String() })),
  // Optional: files exported before anti-cheat boards existed import with the defaults.
  client_submit: Type.Optional(Type.Boolean()),
  stat_min: Type.Optional(Nullable(Type.Number())),
  stat_max: Type.Optional(Nullable(Type.Number())),
  // Optional: files exported before tournaments (§18) import as boards without any. Joins and
  // counted submissions are not exported: an imported board's period starts without them.
  join_required: Type.Optional(Type.Boolean()),
  max_participants: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 2_147_483_647 }))),
  max_submissions: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 2_147_483_647 }))),
  starts_at: Type.Optional(TournamentFieldsSchema.properties.starts_at),
  ends_at: Type.Optional(TournamentFieldsSchema.properties.ends_at),
});

export const ExportUserSchema = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
  username: Type.String({ minLength: 1, maxLength: 64 }),
  nickname: Type.String(),
  avatar_url: Nullable(Type.String()),
  roles: Type.Array(Type.String()),
});

export const ExportIndexSchema = Type.Object({
  collection: Type.String(),
  fields: Type.Array(
    Type.Object({
      field: Type.String(),
      order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
    }),
  ),
});

/** A collection's TTL field (§17). */
export const ExportTtlSchema = Type.Object({ collection: Type.String(), field: Type.String() });

/** A webhook (§16); `secret` only in files written with `--with-secrets`. */
export const ExportWebhookSchema = Type.Object({
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Type.Optional(Nullable(Type.String())),
  secret: Type.Optional(Type.String()),
});

/** The whole file of `cds export` / `cds import`. */
export const ProjectExportSchema = Type.Object({
  format: Type.Literal('cds-export'),
  version: Type.Literal(1),
  documents: Type.Array(Type.Object({ path: Type.String(), data: Type.Record(Type.String(), Type.Unknown()) })),
  realtime: Type.Unknown(),
  users: Type.Array(ExportUserSchema),
  leaderboards: Type.Array(ExportLeaderboardSchema),
  rules: Type.Optional(
    Type.Unknown({
      description: 'The access rules; null when the project never set one. On import: absent leaves it unchanged',
    }),
  ),
  // Optional: files exported before declared indexes existed import without any (§15).
  indexes: Type.Optional(Type.Array(ExportIndexSchema)),
  // Optional: files exported before webhooks existed import without any (§16).
  webhooks: Type.Optional(Type.Array(ExportWebhookSchema)),
  // Optional: files exported before expiring documents existed import without any (§17).
  ttl: Type.Optional(Type.Array(ExportTtlSchema)),
});

/** A declared index of an import, checked as `POST …/indexes` checks it. */
export interface ImportedIndex {
  collection: string;
  fields: IndexField[];
}

/** A parsed export file. */
export type ProjectExport = Static<typeof ProjectExportSchema>;
/** One index declaration of an export file. */
export type ExportIndex = Static<typeof ExportIndexSchema>;
/** One webhook of an export file. */
export type ExportWebhook = Static<typeof ExportWebhookSchema>;
/** One leaderboard of an export file. */
export type ExportLeaderboard = Static<typeof ExportLeaderboardSchema>;

const validator = Compile(ProjectExportSchema);

/** An import failure: a 400 whose message names the item. */
export function badItem(at: string, message: string): AppError {
  return new AppError('bad_request', `Invalid import: ${at}: ${message}`);
}

/** `/leaderboards/0/entries/3` → `leaderboards[0].entries[3]`. */
function itemName(pointer: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (parts.length === 0) return '(file)';
  return parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

function checkLeaderboard(board: ExportLeaderboard, at: string): void {
  const problem = definitionProblem(definitionOf(board));
  if (problem) throw badItem(`${at}.${problem.at}`, problem.message);
  const leagues = new Set(board.leagues.map((l) => l.slug));
  const assigned = new Map<number, string>();
  for (const [i, a] of board.assignments.entries()) {
    const here = `${at}.assignments[${i}]`;
    if (board.type !== 'AT_RESET') throw badItem(here, 'assignments are only allowed on AT_RESET leaderboards');
    if (!leagues.has(a.league)) throw badItem(`${here}.league`, `unknown league '${a.league}'`);
    if (assigned.has(a.user_id)) throw badItem(`${here}.user_id`, `user ${a.user_id} is assigned twice`);
    assigned.set(a.user_id, a.league);
  }
  // Entries are not held to stat_min/stat_max: the bounds govern submissions, and a board whose
  // bounds were narrowed keeps the stats it had (export then import must reproduce it).
  const seen = new Set<number>();
  for (const [i, e] of board.entries.entries()) {
    const here = `${at}.entries[${i}]`;
    if (!leagues.has(e.league)) throw badItem(`${here}.league`, `unknown league '${e.league}'`);
    if (seen.has(e.user_id)) throw badItem(`${here}.user_id`, `user ${e.user_id} has two entries`);
    seen.add(e.user_id);
    if (board.type === 'AT_RESET' && assigned.get(e.user_id) !== e.league) {
      throw badItem(`${here}.league`, `user ${e.user_id} is not assigned to league '${e.league}'`);
    }
  }
}

/**
 * Checks an export file completely (shape and rules) and returns it typed; throws a 400 naming
 * the first bad item. Checks that need the database (user ids of entries) happen in the import.
 */
export function parseProjectExport(input: unknown, limits: PathLimits): ProjectExport {
  if (!validator.Check(input)) {
    const first = validator.Errors(input)[0];
    throw badItem(itemName(first?.instancePath ?? ''), first?.message ?? 'is invalid');
  }
  const file = input as ProjectExport;
  const paths = new Set<string>();
  for (const [i, doc] of file.documents.entries()) {
    let normalized: string;
    try {
      normalized = parseDocumentPath(doc.path, limits).path;
    } catch (error) {
      throw badItem(`documents[${i}].path`, error instanceof Error ? error.message : 'invalid path');
    }
    if (normalized !== doc.path) throw badItem(`documents[${i}].path`, `must be normalized ('${normalized}')`);
    if (paths.has(doc.path)) throw badItem(`documents[${i}].path`, `duplicate path '${doc.path}'`);
    paths.add(doc.path);
    const problem = unstorableReason(doc.data as JsonValue);
    if (problem) throw badItem(`documents[${i}].data`, problem);
  }
  if (file.realtime !== null && !isJsonObject(file.realtime)) throw badItem('realtime', 'must be an object or null');
  // A tree holds values of up to 64 levels at paths of up to 64 segments.
  const treeProblem = file.realtime === null ? null : unstorableReason(file.realtime as JsonValue, 2 * MAX_JSON_DEPTH);
  if (treeProblem) throw badItem('realtime', treeProblem);
  const ids = new Set<number>();
  const names = new Set<string>();
  for (const [i, user] of file.users.entries()) {
    if (ids.has(user.id)) throw badItem(`users[${i}].id`, `duplicate user id ${user.id}`);
    if (names.has(user.username.toLowerCase()))
      throw badItem(`users[${i}].username`, `duplicate username '${user.username}'`);
    ids.add(user.id);
    names.add(user.username.toLowerCase());
  }
  const slugs = new Set<string>();
  for (const [i, board] of file.leaderboards.entries()) {
    if (slugs.has(board.slug)) throw badItem(`leaderboards[${i}].slug`, `duplicate leaderboard '${board.slug}'`);
    slugs.add(board.slug);
    checkLeaderboard(board, `leaderboards[${i}]`);
  }
  importedIndexes(file);
  importedTtls(file);
  for (const [i, webhook] of (file.webhooks ?? []).entries()) {
    const issue = webhookProblems(webhook, [])[0];
    const at = `webhooks[${i}]`;
    if (issue)
      throw badItem(`${at}${issue.loc.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('')}`, issue.msg);
    if (webhook.secret !== undefined && !isWebhookSecret(webhook.secret)) {
      throw badItem(`${at}.secret`, 'must be whsec_ and the base64 of a 24 to 64 byte key');
    }
  }
  return file;
}

/** A declared index as §8 writes it: `{collection, fields: [{field, order}]}`. */
export function exportedIndex(index: DocumentIndex): ExportIndex {
  return { collection: index.collection, fields: index.fields.map(fieldView) };
}

/**
 * The index declarations of a file (§8, §15), each checked like a `POST …/indexes`; a bad or
 * repeated one is a 400 naming it (`indexes[2].fields[0].field: …`).
 */
export function importedIndexes(file: ProjectExport): ImportedIndex[] {
  const declarations = file.indexes ?? [];
  if (declarations.length > MAX_INDEXES_PER_PROJECT) {
    throw badItem('indexes', `at most ${MAX_INDEXES_PER_PROJECT} indexes per project`);
  }
  const seen = new Set<string>();
  return declarations.map((declaration, i) => {
    const at = `indexes[${i}]`;
    let parsed: ImportedIndex;
    try {
      parsed = { collection: parseCollectionName(declaration.collection), fields: [] };
    } catch (error) {
      throw badItem(`${at}.collection`, error instanceof Error ? error.message : 'is invalid');
    }
    if (parsed.collection !== declaration.collection) {
      throw badItem(`${at}.collection`, `must be normalized ('${parsed.collection}')`);
    }
    try {
      parsed.fields = parseIndexFields(declaration.fields);
    } catch (error) {
      // `loc` is ['body', 'fields', i?, 'field'?]: the same place in the file.
      const issue = error instanceof AppError ? error.issues?.[0] : undefined;
      if (!issue) throw error;
      const place = issue.loc.slice(2).map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`));
      throw badItem(`${at}.fields${place.join('')}`, issue.msg);
    }
    const signature = indexSignature(parsed.collection, parsed.fields);
    if (seen.has(signature)) throw badItem(at, 'the same index is declared twice');
    seen.add(signature);
    return parsed;
  });
}

/**
 * The ruleset an import sets as a new revision (§8, §9): null when the file has no `rules` (the
 * ruleset stays), the open ruleset for `rules: null`. An invalid one is a 400 naming `rules.<where>`.
 */
export function importedRules(file: ProjectExport): Ruleset | null {
  if (file.rules === undefined) return null;
  if (file.rules === null) return OPEN_RULESET;
  if (!isJsonObject(file.rules)) throw badItem('rules', 'must be an object or null');
  try {
    return parseRuleset(file.rules, 'rules.');
  } catch (error) {
    if (error instanceof AppError) throw new AppError('bad_request', `Invalid import: ${error.message}`);
    throw error;
  }
}
