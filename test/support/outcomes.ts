/** Outcomes of store methods that answer a refusal (`'taken'`, `'missing'`) instead of throwing. */

/** What the store created; a refusal fails the test. */
export function created<T extends object>(outcome: T | 'taken' | 'missing'): T {
  if (typeof outcome === 'string') throw new Error(`the store refused: ${outcome}`);
  return outcome;
}
