/**
 * A transaction that must answer something other than an error after undoing what it wrote (a
 * counted submission whose entry write then lost, a write whose count then hit the limit) throws
 * `RolledBack`: both engines' transaction helpers roll back on a throw, and the caller turns it
 * back into the answer.
 */
export class RolledBack<T> extends Error {
  constructor(readonly result: T) {
    super('rolled back');
  }
}

/** The result a `RolledBack` carries; any other error is thrown on. */
export function rolledBackResult<T>(error: unknown): T {
  if (error instanceof RolledBack) return error.result as T;
  throw error;
}

/** The answer of `work`, or the result of the `RolledBack` it threw (after its transaction rolled back). */
export async function unlessRolledBack<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    return rolledBackResult<T>(error);
  }
}
