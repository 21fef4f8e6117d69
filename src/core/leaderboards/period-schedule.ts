import type { Period, ResetSchedule } from './leaderboard-model.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Start of the UTC day holding `at`. */
function startOfDay(at: number): number {
  return Math.floor(at / DAY_MS) * DAY_MS;
}

/**
 * The period of a schedule that contains `at`. Periods are UTC calendar units: days from
 * midnight, ISO weeks from Monday midnight, months from the first at midnight. A board that
 * never resets has one period from `at` (its creation) with no end.
 */
export function periodContaining(reset: ResetSchedule, at: number): Period {
  switch (reset) {
    case 'none':
      return { start: at, end: null };
    case 'daily': {
      const start = startOfDay(at);
      return { start, end: start + DAY_MS };
    }
    case 'weekly': {
      const day = startOfDay(at);
      // getUTCDay: 0 is Sunday; ISO weeks start on Monday.
      const sinceMonday = (new Date(day).getUTCDay() + 6) % 7;
      const start = day - sinceMonday * DAY_MS;
      return { start, end: start + 7 * DAY_MS };
    }
    case 'monthly': {
      const date = new Date(at);
      const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
      const end = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
      return { start, end };
    }
  }
}

/**
 * The period that follows an ended one at `now`: the one containing `now`, so that a service
 * that was down across several periods starts the current one instead of replaying empty ones.
 */
export function nextPeriod(reset: ResetSchedule, ended: Period, now: number): Period {
  const end = ended.end ?? now;
  return periodContaining(reset, Math.max(now, end));
}

/** ISO 8601 UTC with milliseconds, the format of every timestamp in responses and exports. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
