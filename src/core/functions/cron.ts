/**
 * Cron expressions of schedules (§16), in UTC: a module's expression is checked when it loads, and
 * the schedule runner asks for the last tick at or before a time. Parsing and stepping through
 * occurrences is `cron-parser`'s; what counts as an expression here is decided in this file.
 */
import { CronExpressionParser } from 'cron-parser';

/** `@hourly`, `@daily`…: the shorthands cron-parser knows (`@reboot` is not a tick). */
const SHORTHANDS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

/**
 * What is wrong with a cron expression, or null when it is one: five fields (minute, hour, day of
 * month, month, day of week) or a shorthand. cron-parser alone accepts too little (it fills
 * missing fields with `*`, so `''` would mean every minute) and seconds, which ticks need not have.
 */
export function cronProblem(expression: unknown): string | null {
  if (typeof expression !== 'string') return 'cron must be a string';
  const trimmed = expression.trim();
  const fields = trimmed.split(/\s+/);
  if (!SHORTHANDS.includes(trimmed.toLowerCase()) && fields.length !== 5) {
    return `cron '${expression}' must have five fields (minute hour day-of-month month day-of-week)`;
  }
  try {
    CronExpressionParser.parse(trimmed, { tz: 'UTC', currentDate: new Date(0) }).next();
    return null;
  } catch (error) {
    return `cron '${expression}' does not parse: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** A checked expression's ticks. */
export class Cron {
  private constructor(private readonly expression: string) {}

  /** The cron of a checked expression; throws what `cronProblem` would tell. */
  static of(expression: string): Cron {
    const problem = cronProblem(expression);
    if (problem) throw new Error(problem);
    return new Cron(expression.trim());
  }

  /** The last tick at or before `time` (epoch ms), or null when there is none. */
  latest(time: number): number | null {
    // cron-parser's prev() is strictly before its current date: one millisecond later counts `time` itself.
    const ticks = CronExpressionParser.parse(this.expression, { tz: 'UTC', currentDate: new Date(time + 1) });
    return ticks.hasPrev() ? ticks.prev().getTime() : null;
  }
}
