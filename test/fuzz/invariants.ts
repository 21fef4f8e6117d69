/** What every fuzzed answer must satisfy (§0), and the fuzz suites' budget. */

/** Cases per property: CDS_FUZZ_RUNS, or the suite's default for the engine. */
export function fuzzRuns(fallback: number): number {
  const given = Number(process.env.CDS_FUZZ_RUNS);
  return Number.isInteger(given) && given > 0 ? given : fallback;
}

/** The seed of every property: CDS_FUZZ_SEED, default fixed so that `npm test` replays exactly. */
export const FUZZ_SEED = Number(process.env.CDS_FUZZ_SEED ?? 18_018);

/** A response as `inject` gives it. */
export interface Answer {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

const LOC_ROOTS = new Set(['body', 'query', 'path']);

function isValidationItem(item: unknown): boolean {
  if (typeof item !== 'object' || item === null) return false;
  const { loc, msg, type } = item as Record<string, unknown>;
  return (
    Array.isArray(loc) &&
    LOC_ROOTS.has(loc[0] as string) &&
    loc.every((part) => typeof part === 'string' || typeof part === 'number') &&
    typeof msg === 'string' &&
    typeof type === 'string'
  );
}

/** Why an answer breaks §0, or null: never a 5xx, JSON with a request id, errors as `{detail}`. */
export function contractProblem(answer: Answer): string | null {
  if (answer.statusCode >= 500) return `status ${answer.statusCode}: ${answer.body.slice(0, 300)}`;
  if (!answer.headers['x-request-id']) return 'no x-request-id header';
  const type = String(answer.headers['content-type'] ?? '');
  if (!type.startsWith('application/json')) return `content-type ${type}`;
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return `body is not JSON: ${answer.body.slice(0, 100)}`;
  }
  if (answer.statusCode < 400) return null;
  const keys = typeof body === 'object' && body !== null ? Object.keys(body) : [];
  const detail = (body as { detail?: unknown }).detail;
  if (keys.length !== 1 || keys[0] !== 'detail') return `error body is not {detail}: ${answer.body.slice(0, 300)}`;
  if (typeof detail === 'string' && detail !== '') return null;
  if (answer.statusCode === 422 && Array.isArray(detail) && detail.length > 0 && detail.every(isValidationItem)) {
    return null;
  }
  return `malformed detail for ${answer.statusCode}: ${answer.body.slice(0, 300)}`;
}
