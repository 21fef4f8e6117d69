/**
 * Where server functions report what each run did (§16 metrics): the port core calls, which the
 * composition root implements (`http/metrics.ts` counts `cds_function_calls_total` and times
 * `cds_function_duration_seconds`), so core never imports a metrics library. RPCs report under
 * their name; hooks are meant to report as `before:<hook>` (`before:documents.write`), so one
 * counter tells every kind of function apart.
 */
import { AppError } from '../errors.js';
import { FunctionRejection } from './functions-module.js';

/** How a run ended: returned, `reject(...)`ed, threw (or returned what is not JSON), or ran past its time. */
export type FunctionOutcome = 'ok' | 'rejected' | 'failed' | 'timed_out';

export const FUNCTION_OUTCOMES: readonly FunctionOutcome[] = ['ok', 'rejected', 'failed', 'timed_out'];

/** The port: told once per run of a function that exists (an unknown name is never reported). */
export interface FunctionObserver {
  observe(projectId: number, name: string, outcome: FunctionOutcome, seconds: number): void;
}

/** The outcome of a run that threw `error`: a `reject`, a time-out (`AppError` `timed_out`), or a failure. */
export function outcomeOf(error: unknown): FunctionOutcome {
  if (error instanceof FunctionRejection) return 'rejected';
  if (error instanceof AppError && error.code === 'timed_out') return 'timed_out';
  return 'failed';
}

/**
 * Runs `run` and reports its outcome and duration to `observer` (nothing without one), then
 * answers or throws what `run` did (an RPC's or schedule's; a hook reports from `HookRun`).
 */
export async function observed<T>(
  observer: FunctionObserver | undefined,
  projectId: number,
  name: string,
  run: () => Promise<T>,
): Promise<T> {
  if (!observer) return run();
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  try {
    const value = await run();
    observer.observe(projectId, name, 'ok', seconds());
    return value;
  } catch (error) {
    observer.observe(projectId, name, outcomeOf(error), seconds());
    throw error;
  }
}
