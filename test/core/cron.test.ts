/**
 * Cron expressions of schedules (§16): what a module may write (five fields or a shorthand, UTC),
 * what stops the start, and the latest tick at or before a time (the tick the runner claims).
 */
import { describe, expect, it } from 'vitest';
import { Cron, cronProblem } from '../../src/core/functions/cron.js';

const at = (day: number, hh: number, mm: number, ss = 0) => Date.UTC(2026, 0, day, hh, mm, ss);

describe('cron expressions of schedules', () => {
  it('accepts five fields and the shorthands', () => {
    for (const expression of ['0 * * * *', '*/15 * * * *', '0 9 * * 1-5', '30 3 1 * *', ' @daily ', '@hourly']) {
      expect(cronProblem(expression), expression).toBeNull();
    }
  });

  it('refuses what is not a cron of five fields, or does not parse', () => {
    expect(cronProblem(undefined)).toBe('cron must be a string');
    expect(cronProblem('')).toMatch(/must have five fields/);
    expect(cronProblem('* * *')).toMatch(/must have five fields/);
    expect(cronProblem('0 0 * * * *')).toMatch(/must have five fields/);
    expect(cronProblem('@reboot')).toMatch(/must have five fields/);
    expect(cronProblem('61 * * * *')).toMatch(/does not parse/);
    expect(cronProblem('0 0 31 2 *')).toMatch(/does not parse/);
    expect(cronProblem('every hour * * *')).toMatch(/does not parse/);
    expect(() => Cron.of('nope')).toThrow(/must have five fields/);
  });

  it('finds the latest tick at or before a time, in UTC', () => {
    const hourly = Cron.of('0 * * * *');
    expect(hourly.latest(at(1, 11, 0))).toBe(at(1, 11, 0));
    expect(hourly.latest(at(1, 11, 0) + 1)).toBe(at(1, 11, 0));
    expect(hourly.latest(at(1, 11, 59, 59))).toBe(at(1, 11, 0));
    expect(hourly.latest(at(1, 11, 0) - 1)).toBe(at(1, 10, 0));
    // 1 January 2026 is a Thursday: the weekday ticks before Monday the 5th are Friday's.
    expect(Cron.of('0 9 * * 1-5').latest(at(4, 12, 0))).toBe(at(2, 9, 0));
    expect(Cron.of('@daily').latest(at(3, 0, 0, 30))).toBe(at(3, 0, 0));
  });
});
