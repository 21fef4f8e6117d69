/**
 * What a module's `schedule` must be (§16), as `moduleProblem` checks it at load, and the clash of
 * one schedule name defined for one project by two modules (`FunctionRegistry.of`).
 */
import { describe, expect, it } from 'vitest';
import { FunctionRegistry } from '../../src/core/functions/function-registry.js';
import { defineFunctions, moduleProblem } from '../../src/core/functions/functions-module.js';

const withSchedule = (schedule: unknown, projects: '*' | number[] = '*') =>
  defineFunctions({ projects, schedule: schedule as Record<string, { cron: string; run: () => void }> });

describe('schedules as a module declares them', () => {
  it('accepts schedules of a cron and a run function', () => {
    expect(moduleProblem(withSchedule({}))).toBeNull();
    expect(moduleProblem(withSchedule({ hourly: { cron: '0 * * * *', run: () => undefined } }))).toBeNull();
    expect(moduleProblem(withSchedule({ 'daily.rewards': { cron: '@daily', run: async () => 1 } }))).toBeNull();
  });

  it('names what is wrong with a schedule', () => {
    const run = () => undefined;
    expect(moduleProblem(withSchedule('hourly'))).toBe('schedule must be an object of schedules');
    expect(moduleProblem(withSchedule({ 'no spaces': { cron: '0 * * * *', run } }))).toMatch(
      /^schedule name 'no spaces' must match/,
    );
    expect(moduleProblem(withSchedule({ tick: () => undefined }))).toBe("schedule 'tick' must be {cron, run}");
    expect(moduleProblem(withSchedule({ tick: { cron: '0 * * * *' } }))).toBe("schedule 'tick' has no run function");
    expect(moduleProblem(withSchedule({ tick: { cron: '0 * * * *', run: 'go' } }))).toBe(
      "schedule 'tick' has no run function",
    );
    expect(moduleProblem(withSchedule({ tick: { run } }))).toBe("schedule 'tick': cron must be a string");
    expect(moduleProblem(withSchedule({ tick: { cron: '* *', run } }))).toMatch(
      /^schedule 'tick': cron '\* \*' must have five fields/,
    );
    expect(moduleProblem(withSchedule({ tick: { cron: '0 25 * * *', run } }))).toMatch(
      /^schedule 'tick': cron '0 25 \* \* \*' does not parse/,
    );
  });

  it('refuses one schedule name for one project in two modules, and lists each module’s schedules', () => {
    const tick = { cron: '0 * * * *', run: () => undefined };
    const a = { file: '/f/a.ts', definition: withSchedule({ tick }, [1, 2]) };
    const b = { file: '/f/b.ts', definition: withSchedule({ tick }, [2]) };
    const c = { file: '/f/c.ts', definition: withSchedule({ tick, other: tick }, [3]) };
    expect(() => FunctionRegistry.of([a, b])).toThrow("/f/b.ts: schedule 'tick' is also defined by /f/a.ts");
    const registry = FunctionRegistry.of([a, c]);
    expect(registry.list().map((module) => module.schedule)).toEqual([['tick'], ['other', 'tick']]);
    expect(registry.schedules().map((s) => [s.file, s.name, s.projects])).toEqual([
      ['/f/a.ts', 'tick', [1, 2]],
      ['/f/c.ts', 'tick', [3]],
      ['/f/c.ts', 'other', [3]],
    ]);
  });
});
