/** The §5 leaderboard model: boards, leagues, rewards, entries and periods (timestamps in epoch ms). */
import type { JsonValue } from '../json.js';

/** How a board treats leagues: by stat thresholds, or by assignment at each reset. */
export const LEADERBOARD_TYPES = ['CONTINUOUS', 'AT_RESET'] as const;
/** `desc`: higher is better; `asc`: lower is better. */
export const SORT_ORDERS = ['asc', 'desc'] as const;
/** How a submitted value combines with the stored stat. */
export const SUBMIT_OPERATORS = ['best', 'latest', 'increment'] as const;
/** When a board's period ends. */
export const RESET_SCHEDULES = ['none', 'daily', 'weekly', 'monthly'] as const;

/** How a board treats leagues: by stat thresholds, or by assignment at each reset. */
export type LeaderboardType = (typeof LEADERBOARD_TYPES)[number];
/** `desc`: higher is better; `asc`: lower is better. */
export type SortOrder = (typeof SORT_ORDERS)[number];
/** How a submitted value combines with the stored stat. */
export type SubmitOperator = (typeof SUBMIT_OPERATORS)[number];
/** When a board's period ends. */
export type ResetSchedule = (typeof RESET_SCHEDULES)[number];

/** A board's current period: `[start, end)`, `end` null when the board never resets. */
export interface Period {
  start: number;
  end: number | null;
}

/** An ordered tier of a board (order 0 is the lowest). */
export interface League {
  slug: string;
  name: string;
  order: number;
  /** CONTINUOUS: the stat a user must reach to belong to this league. */
  minStat: number | null;
  /** AT_RESET: how many of the top of this league move up at a reset. */
  promoteTop: number | null;
  /** AT_RESET: how many of the bottom of this league move down at a reset. */
  demoteBottom: number | null;
}

/** A reward for the final ranks `rankFrom..rankTo` of a league. */
export interface Reward {
  league: string;
  rankFrom: number;
  rankTo: number;
  /** Free JSON the game interprets. */
  reward: JsonValue;
}

/** Everything an administrator or an import file says about a board. */
export interface LeaderboardDefinition {
  slug: string;
  name: string;
  description: string;
  type: LeaderboardType;
  sort: SortOrder;
  operator: SubmitOperator;
  reset: ResetSchedule;
  /** By order ascending. */
  leagues: League[];
  rewards: Reward[];
  /** False: only the admin API (game servers, server keys) may submit; a client's submission is refused (403). */
  clientSubmit: boolean;
  /** The lowest value a submission may carry (inclusive); null: no lower bound. */
  statMin: number | null;
  /** The highest value a submission may carry (inclusive); null: no upper bound. */
  statMax: number | null;
  /** §18: players must join (each period) before they submit. */
  joinRequired: boolean;
  /** §18: how many players may join a period; null: no limit. */
  maxParticipants: number | null;
  /** §18: how many submissions of a player count per period; null: no limit. */
  maxSubmissions: number | null;
  /** §18: when players' submissions open (epoch ms, inclusive); null: always open. */
  startsAt: number | null;
  /** §18: when players' submissions close (epoch ms, exclusive); null: never. */
  endsAt: number | null;
}

/** The anti-cheat settings of a board (§9): who may submit, and which values. */
export type AntiCheat = Pick<LeaderboardDefinition, 'clientSubmit' | 'statMin' | 'statMax'>;

/** A board's anti-cheat settings when its definition (an admin request, an older export file) leaves them out. */
export const ANTI_CHEAT_DEFAULTS: Readonly<AntiCheat> = { clientSubmit: true, statMin: null, statMax: null };

/** The tournament settings of a board (§18): joining, limits and the window players submit in. */
export type Tournament = Pick<
  LeaderboardDefinition,
  'joinRequired' | 'maxParticipants' | 'maxSubmissions' | 'startsAt' | 'endsAt'
>;

/** A board's tournament settings when its definition (an admin request, an older export file) leaves them out: none. */
export const TOURNAMENT_DEFAULTS: Readonly<Tournament> = {
  joinRequired: false,
  maxParticipants: null,
  maxSubmissions: null,
  startsAt: null,
  endsAt: null,
};

/** A stored board with its current period. */
export interface Leaderboard extends LeaderboardDefinition {
  id: number;
  projectId: number;
  /** Bumped whenever the board is replaced, so cached ranks of an older revision are never used. */
  revision: number;
  period: Period;
}

/** One user's stat for the current period. */
export interface LeaderboardEntry {
  userId: number;
  statValue: number;
  league: string;
  /** When `statValue` last changed: the earlier wins a tie. */
  updatedAt: number;
}

/** What the store knows of one user on a board in the current period. */
export interface Standing {
  entry: LeaderboardEntry | null;
  /** AT_RESET boards: the league the user is assigned to this period. */
  assignedLeague: string | null;
}

/** The lowest league of a board. */
export function lowestLeague(board: Pick<LeaderboardDefinition, 'leagues'>): League {
  const lowest = board.leagues[0];
  if (!lowest) throw new Error('a leaderboard has at least one league');
  return lowest;
}

/** The league of that slug, or undefined. */
export function findLeague(board: Pick<LeaderboardDefinition, 'leagues'>, slug: string): League | undefined {
  return board.leagues.find((league) => league.slug === slug);
}

/** True when the period has ended at `now` (and its reset has not run yet, or it would have moved on). */
export function isExpired(period: Period, now: number): boolean {
  return period.end !== null && now >= period.end;
}
