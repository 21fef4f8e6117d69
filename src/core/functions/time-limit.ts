/** The time limit of an operator's function (§16): what it returned, or `TIMED_OUT` once the limit passed. */

export const TIMED_OUT = Symbol('timed out');

/** Whether `value` is a promise (or any object with a `then` method). */
export const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === 'object' || typeof value === 'function') &&
  value !== null &&
  typeof (value as { then?: unknown }).then === 'function';

/**
 * Runs `run` and resolves with its result, or with `TIMED_OUT` after `ms` milliseconds. The
 * function is not stopped (JavaScript cannot be): only its answer stops being waited for. A
 * function that answered at once (no promise) is not timed: no timer could have fired before its
 * answer anyway (and a timer for each no-op hook would cost it more than its call).
 */
export async function withinTime<T>(ms: number, run: () => T | Promise<T>): Promise<T | typeof TIMED_OUT> {
  const result = run();
  if (!isThenable(result)) return result;
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  try {
    return await Promise.race([result, limit]);
  } finally {
    clearTimeout(timer);
  }
}
