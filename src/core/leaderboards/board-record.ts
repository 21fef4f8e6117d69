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
  TOURNAMENT_DEFAULTS,
  type Tournament,
} from './leaderboard-model.js';
import { isoTime } from './period-schedule.js';

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

/**
 * An instant as a board's window takes it: ISO 8601 with a time and a zone (`2026-11-22T10:00:00Z`,
 * `2026-11-22T11:00+01:00`). Shown back as UTC with milliseconds (`2026-11-22T10:00:00.000Z`).
 */
export const INSTANT_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})$';

const INSTANT = new RegExp(INSTANT_PATTERN);

/** The tournament fields of a board (§18) as every board representation shows them; inputs bound the integers. */
export const TournamentFieldsSchema = Type.Object({
  join_required: Type.Boolean({
    description: 'Players must join (POST /leaderboards/{slug}/join) each period to submit',
  }),
  max_participants: Nullable(
    Type.Integer({ description: 'How many players may join a period (join_required boards only); null: no limit' }),
  ),
  max_submissions: Nullable(
    Type.Integer({ description: 'How many submissions of a player count per period; null: no limit' }),
  ),
  starts_at: Nullable(
    Type.String({
      pattern: INSTANT_PATTERN,
      description: 'When players’ submissions open (ISO 8601, inclusive); null: open from the start',
    }),
  ),
  ends_at: Nullable(
    Type.String({
      pattern: INSTANT_PATTERN,
      description: 'When players’ submissions close (ISO 8601, exclusive; after starts_at); null: never',
    }),
  ),
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
export interface BoardFields extends Static<typeof BoardFieldsSchema>, Static<typeof TournamentFieldsSchema> {
  client_submit: boolean;
  stat_min: number | null;
  stat_max: number | null;
}

/** The window's instants as both engines store them: epoch milliseconds. */
type StoredWindow = { starts_at: number | null; ends_at: number | null };

/** A definition's fields as stored: the record's, the window in epoch milliseconds. */
export type BoardColumns = Omit<BoardFields, keyof StoredWindow> & StoredWindow;

/** A whole definition as a record. */
export interface BoardRecord extends BoardFields {
  leagues: LeagueRecord[];
  rewards: RewardRecord[];
}

/** A stored board's row once its driver's types are coerced: the definition's fields, id, revision, period. */
export interface BoardRow extends BoardColumns {
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
/** A definition as sent; omitted fields take the defaults of `DEFAULTS`, `ANTI_CHEAT_DEFAULTS` and `TOURNAMENT_DEFAULTS`. */
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

/**
 * The epoch milliseconds of an instant of `INSTANT_PATTERN`; NaN when it is none, or names no real
 * time (`2026-02-30`, `T24:00`: Date.parse would roll them over), which `definitionProblem` refuses.
 */
export function instantOf(text: string): number {
  const ms = INSTANT.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) return ms;
  const zone = /([+-])(\d{2}):(\d{2})$/.exec(text);
  const offsetMinutes = zone ? (zone[1] === '-' ? -1 : 1) * (Number(zone[2]) * 60 + Number(zone[3])) : 0;
  // The calendar date in the text's own zone must be the one written.
  return isoTime(ms + offsetMinutes * 60_000).slice(0, 10) === text.slice(0, 10) ? ms : Number.NaN;
}

/** The tournament settings an input describes (§18); an omitted field takes its default. */
export function tournamentOf(input: Partial<BoardFields>): Tournament {
  const instant = (text: string | null | undefined) => (text === undefined || text === null ? null : instantOf(text));
  return {
    joinRequired: input.join_required ?? TOURNAMENT_DEFAULTS.joinRequired,
    maxParticipants: input.max_participants ?? TOURNAMENT_DEFAULTS.maxParticipants,
    maxSubmissions: input.max_submissions ?? TOURNAMENT_DEFAULTS.maxSubmissions,
    startsAt: instant(input.starts_at),
    endsAt: instant(input.ends_at),
  };
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
    ...tournamentOf(input),
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
    join_required: def.joinRequired,
    max_participants: def.maxParticipants,
    max_submissions: def.maxSubmissions,
    starts_at: def.startsAt === null ? null : isoTime(def.startsAt),
    ends_at: def.endsAt === null ? null : isoTime(def.endsAt),
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

const TOURNAMENT_COLUMNS = [
  'join_required',
  'max_participants',
  'max_submissions',
  'starts_at',
  'ends_at',
] as const satisfies readonly (keyof BoardColumns)[];
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
  ...TOURNAMENT_COLUMNS,
] as const satisfies readonly (keyof BoardColumns)[];
// slug, type, sort and reset stay: they define a board's ranks and periods.
const EDITABLE_COLUMNS = [
  'name',
  'description',
  'operator',
  'client_submit',
  'stat_min',
  'stat_max',
  ...TOURNAMENT_COLUMNS,
] as const satisfies readonly (keyof BoardColumns)[];

/** The values of those fields of a definition, in that order. */
function valuesOf(def: LeaderboardDefinition, columns: readonly (keyof BoardColumns)[]): BoardValue[] {
  const fields: BoardColumns = { ...boardFields(def), starts_at: def.startsAt, ends_at: def.endsAt };
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
    const { starts_at: startsAt, ends_at: endsAt, ...fields } = row;
    return {
      id: row.id,
      projectId: row.project_id,
      revision: row.revision,
      period: { start: row.period_start, end: row.period_end },
      ...definitionOf({ ...fields, leagues: [...leagues], rewards: [...rewards] }),
      startsAt,
      endsAt,
    };
  },
};
