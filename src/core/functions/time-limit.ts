/** The time limit of an operator's function (§16): what it returned, or `TIMED_OUT` once the limit passed. */

export const TIMED_OUT = Symbol('timed out');

/**
 * Runs `run` and resolves with its result, or with `TIMED_OUT` after `ms` milliseconds. The
 * function is not stopped (JavaScript cannot be): only its answer stops being waited for.
 */
export async function withinTime<T>(ms: number, run: () => T | Promise<T>): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  try {
    return await Promise.race([Promise.resolve().then(run), limit]);
  } finally {
    clearTimeout(timer);
  }
}
