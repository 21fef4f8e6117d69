/**
 * A board's definition as one record (§5, §8): the snake_case fields the API shows, an export
 * file carries and both engines store (under the same column names), with the one mapping
 * between that record and the model. Engines only coerce their driver's types to it (PostgreSQL's
 * BIGINT strings, SQLite's 0/1 and JSON text); the views, the admin input and the export format
 * are built from it.
 */
import Type, { type Static, type TLiteral, type TUnion } from 'typebox';
import type { JsonValue } from '../json.js';
import { Nullable } from '../nullable-schema.js';
import {
  ANTI_CHEAT_DEFAULTS,
  LEADERBOARD_TYPES,
  type Leaderboard,
  type LeaderboardDefinition,
  type League,
  type Period,
  RESET_SCHEDULES,
  type Reward,
  SORT_ORDERS,
  SUBMIT_OPERATORS,
} from './leaderboard-model.js';

/** The schema of one of `values`: the union of their literals, in their order. */
function oneOf<const T extends readonly string[]>(values: T): TUnion<{ -readonly [K in keyof T]: TLiteral<T[K]> }> {
  return Type.Union(values.map((value) => Type.Literal(value))) as never;
}

/** The scalar fields of a definition as schemas (besides the anti-cheat ones, which each use documents). */
export const BoardFieldsSchema = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  description: Type.String(),
  type: oneOf(LEADERBOARD_TYPES),
  sort: oneOf(SORT_ORDERS),
  operator: oneOf(SUBMIT_OPERATORS),
  reset: oneOf(RESET_SCHEDULES),
});

/** A league as a record; an input that must bound its integers overrides them. */
export const LeagueRecordSchema = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  order: Type.Integer(),
  min_stat: Nullable(Type.Number()),
  promote_top: Nullable(Type.Integer()),
  demote_bottom: Nullable(Type.Integer()),
});

/** A reward as a record. */
export const RewardRecordSchema = Type.Object({
  league: Type.String(),
  rank_from: Type.Integer(),
  rank_to: Type.Integer(),
  reward: Type.Unknown(),
});

/** A league as a record. */
export type LeagueRecord = Static<typeof LeagueRecordSchema>;
/** A reward as a record: `reward` is free JSON. */
export type RewardRecord = Omit<Static<typeof RewardRecordSchema>, 'reward'> & { reward: JsonValue };

/** A definition's fields besides leagues and rewards: one column each in both engines. */
export interface BoardFields extends Static<typeof BoardFieldsSchema> {
  client_submit: boolean;
  stat_min: number | null;
  stat_max: number | null;
}

/** A whole definition as a record. */
export interface BoardRecord extends BoardFields {
  leagues: LeagueRecord[];
  rewards: RewardRecord[];
}

/** A stored board's row once its driver's types are coerced: the definition's fields, id, revision, period. */
export interface BoardRow extends BoardFields {
  id: number;
  project_id: number;
  revision: number;
  period_start: number;
  period_end: number | null;
}

/** A league as an admin request or an import file sends it: `order` defaults to its position, `name` to its slug. */
export type LeagueInput = Pick<LeagueRecord, 'slug'> & Partial<LeagueRecord>;
/** A reward as sent; a missing `reward` is null. */
export type RewardInput = Omit<RewardRecord, 'reward'> & { reward?: unknown };
/** A definition as sent; omitted fields take the defaults of `DEFAULTS` and `ANTI_CHEAT_DEFAULTS`. */
export type BoardInput = Pick<BoardFields, 'slug' | 'name'> &
  Partial<Omit<BoardFields, 'slug' | 'name'>> & { leagues?: LeagueInput[]; rewards?: RewardInput[] };

/** What a board is when its input leaves a field out (§5: one league `global`). */
export const DEFAULTS = {
  description: '',
  type: 'CONTINUOUS',
  sort: 'desc',
  operator: 'best',
  reset: 'none',
  leagues: [{ slug: 'global', name: 'Global' }],
} as const;

/** The leagues of an input, by order. */
export function leaguesOf(input: readonly LeagueInput[]): League[] {
  return input
    .map((l, i) => ({
      slug: l.slug,
      name: l.name ?? l.slug,
      order: l.order ?? i,
      minStat: l.min_stat ?? null,
      promoteTop: l.promote_top ?? null,
      demoteBottom: l.demote_bottom ?? null,
    }))
    .sort((a, b) => a.order - b.order);
}

/** The rewards of an input. */
export function rewardsOf(input: readonly RewardInput[]): Reward[] {
  return input.map((r) => ({
    league: r.league,
    rankFrom: r.rank_from,
    rankTo: r.rank_to,
    reward: (r.reward ?? null) as JsonValue,
  }));
}

/** The definition an input (an admin request, an import file's board) describes. */
export function definitionOf(input: BoardInput): LeaderboardDefinition {
  return {
    slug: input.slug,
    name: input.name,
    description: input.description ?? DEFAULTS.description,
    type: input.type ?? DEFAULTS.type,
    sort: input.sort ?? DEFAULTS.sort,
    operator: input.operator ?? DEFAULTS.operator,
    reset: input.reset ?? DEFAULTS.reset,
    leagues: leaguesOf(input.leagues ?? DEFAULTS.leagues),
    rewards: rewardsOf(input.rewards ?? []),
    clientSubmit: input.client_submit ?? ANTI_CHEAT_DEFAULTS.clientSubmit,
    statMin: input.stat_min ?? ANTI_CHEAT_DEFAULTS.statMin,
    statMax: input.stat_max ?? ANTI_CHEAT_DEFAULTS.statMax,
  };
}

/** A definition's fields besides leagues and rewards. */
export function boardFields(def: LeaderboardDefinition): BoardFields {
  return {
    slug: def.slug,
    name: def.name,
    description: def.description,
    type: def.type,
    sort: def.sort,
    operator: def.operator,
    reset: def.reset,
    client_submit: def.clientSubmit,
    stat_min: def.statMin,
    stat_max: def.statMax,
  };
}

/** A league as a record. */
export function leagueRecord(league: League): LeagueRecord {
  return {
    slug: league.slug,
    name: league.name,
    order: league.order,
    min_stat: league.minStat,
    promote_top: league.promoteTop,
    demote_bottom: league.demoteBottom,
  };
}

/** A reward as a record. */
export function rewardRecord(reward: Reward): RewardRecord {
  return { league: reward.league, rank_from: reward.rankFrom, rank_to: reward.rankTo, reward: reward.reward };
}

/** A whole definition as a record. */
export function boardRecord(def: LeaderboardDefinition): BoardRecord {
  return { ...boardFields(def), leagues: def.leagues.map(leagueRecord), rewards: def.rewards.map(rewardRecord) };
}

/** A value of a board column, before an engine binds it (SQLite stores booleans as 0/1). */
export type BoardValue = string | number | boolean | null;

const DEFINITION_COLUMNS = [
  'slug',
  'name',
  'description',
  'type',
  'sort',
  'operator',
  'reset',
  'client_submit',
  'stat_min',
  'stat_max',
] as const satisfies readonly (keyof BoardFields)[];
// slug, type, sort and reset stay: they define a board's ranks and periods.
const EDITABLE_COLUMNS = [
  'name',
  'description',
  'operator',
  'client_submit',
  'stat_min',
  'stat_max',
] as const satisfies readonly (keyof BoardFields)[];

/** The values of those fields of a definition, in that order. */
function valuesOf(def: LeaderboardDefinition, columns: readonly (keyof BoardFields)[]): BoardValue[] {
  const fields = boardFields(def);
  return columns.map((column) => fields[column]);
}

/**
 * A board's row in both engines: the columns every statement that writes a board names (in one
 * order with their values), and the board a row read back describes.
 */
export const boardRows = {
  /** The columns of a board's definition and current period, in the order of `values`. */
  columns: [...DEFINITION_COLUMNS, 'period_start', 'period_end'] as const,
  values(def: LeaderboardDefinition, period: Period): BoardValue[] {
    return [...valuesOf(def, DEFINITION_COLUMNS), period.start, period.end];
  },
  /** The columns an admin edit rewrites (`LeaderboardAdminStore.redefine`), in the order of `editValues`. */
  editable: EDITABLE_COLUMNS,
  editValues(def: LeaderboardDefinition): BoardValue[] {
    return valuesOf(def, EDITABLE_COLUMNS);
  },
  /** The board a row describes, with its leagues (by order) and rewards (by position). */
  of(row: BoardRow, leagues: readonly LeagueRecord[], rewards: readonly RewardRecord[]): Leaderboard {
    return {
      id: row.id,
      projectId: row.project_id,
      revision: row.revision,
      period: { start: row.period_start, end: row.period_end },
      ...definitionOf({ ...row, leagues: [...leagues], rewards: [...rewards] }),
    };
  },
};
