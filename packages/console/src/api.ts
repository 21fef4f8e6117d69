/** The only `fetch` of the console: the admin API with the signed-in admin's token. */

/**
 * The session is kept in this module and mirrored in `sessionStorage` (this tab only, gone when
 * it closes) so that a reload keeps it (§13); never in `localStorage`, where it would outlive the
 * tab and be readable from every page of the origin later (packages/console/README.md, Security).
 */
const TOKEN_KEY = 'cds-console-token';

/** An answer of the API that was not a success, with its `detail` as text. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface Session {
  token: string;
  expiresAt: number;
}

let current: Session | null = null;

/** Earlier consoles kept the token in `localStorage`: it is removed on the first load of this one. */
function forgetLegacyToken(): void {
  try {
    localStorage.removeItem(TOKEN_KEY);
  } catch {
    // Storage disabled: nothing was kept there either.
  }
}
forgetLegacyToken();

/** The session of this tab, unless it expired. */
export function loadSession(): Session | null {
  if (!current) {
    try {
      current = JSON.parse(sessionStorage.getItem(TOKEN_KEY) ?? 'null') as Session | null;
    } catch {
      current = null;
    }
  }
  if (current && !(current.expiresAt > Date.now())) clearSession();
  return current;
}

export function saveSession(token: string, expiresIn: number): void {
  current = { token, expiresAt: Date.now() + expiresIn * 1000 };
  try {
    sessionStorage.setItem(TOKEN_KEY, JSON.stringify(current));
  } catch {
    // Storage disabled or full: the session lasts until the page is left.
  }
}

export function clearSession(): void {
  current = null;
  try {
    sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // Storage disabled: there is nothing to remove.
  }
}

/** `{detail}` as one line: a string as it is, a §0 validation list as `loc: msg` items. */
function detailText(body: unknown, status: number): string {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((item: { loc?: unknown[]; msg?: string }) => `${(item.loc ?? []).join('.')}: ${item.msg ?? ''}`)
      .join('; ');
  }
  return `HTTP ${status}`;
}

/** Sends a request to the admin API; resolves the JSON answer or throws an `ApiError`. */
export async function api<T>(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const session = loadSession();
  const init: RequestInit = {
    method,
    headers: {
      ...(session ? { authorization: `Bearer ${session.token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  };
  const res = await fetch(url, init);
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!res.ok) {
    if (res.status === 401 && session) {
      clearSession();
      window.dispatchEvent(new Event('cds-signed-out'));
    }
    throw new ApiError(res.status, detailText(json, res.status));
  }
  return json as T;
}

/** A path's segments URL-encoded, slashes kept. */
export const encodePath = (path: string) =>
  path
    .split('/')
    .filter((s) => s !== '')
    .map(encodeURIComponent)
    .join('/');

/** A query string from defined values (arrays repeat the key). */
export function query(params: Record<string, string | number | boolean | string[] | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === '') continue;
    if (Array.isArray(value)) for (const item of value) search.append(key, item);
    else search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
