import { CdsError, codeOf } from './errors.js';
import type { Session } from './session.js';
import type { ErrorBody } from './types.js';

export type QueryValue = string | number | boolean | string[] | undefined;

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, QueryValue>;
  /** Send the bearer token (default true). */
  auth?: boolean;
  /** Extra request headers (`if-match`). */
  headers?: Record<string, string>;
}

/** A JSON answer and its `ETag` without the quotes (null when absent). */
export interface Tagged<T> {
  body: T;
  etag: string | null;
}

export type Fetch = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
) => Promise<{
  status: number;
  ok: boolean;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}>;

/** Encodes a slash-separated path segment by segment. */
export function encodePath(path: string): string {
  return path
    .split('/')
    .filter((s) => s !== '')
    .map(encodeURIComponent)
    .join('/');
}

/** REST calls with the §1 headers; a 401 on a bearer call refreshes the token once and retries. */
export class Http {
  session: Session | undefined;

  constructor(
    readonly baseUrl: string,
    private readonly headers: Record<string, string>,
    private readonly fetchFn: Fetch,
  ) {}

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    return (await this.tagged<T>(method, path, options)).body;
  }

  /** `request`, with the answer's ETag. */
  async tagged<T>(method: string, path: string, options: RequestOptions = {}): Promise<Tagged<T>> {
    const auth = options.auth ?? true;
    if (!auth || !this.session) return this.send<T>(method, path, options, undefined);
    const token = await this.session.accessToken();
    try {
      return await this.send<T>(method, path, options, token);
    } catch (error) {
      if (!(error instanceof CdsError) || error.status !== 401) throw error;
      const fresh = await this.session.refresh(token);
      return this.send<T>(method, path, options, fresh);
    }
  }

  private async send<T>(
    method: string,
    path: string,
    options: RequestOptions,
    token: string | undefined,
  ): Promise<Tagged<T>> {
    const headers: Record<string, string> = { ...this.headers, ...options.headers };
    if (token) headers.authorization = `Bearer ${token}`;
    const init: { method: string; headers: Record<string, string>; body?: string } = { method, headers };
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(options.body);
    }
    let response: Awaited<ReturnType<Fetch>>;
    let text: string;
    try {
      response = await this.fetchFn(this.baseUrl + path + queryString(options.query), init);
      text = await response.text();
    } catch (error) {
      throw new CdsError(0, error instanceof Error ? error.message : String(error), 'network');
    }
    const parsed: unknown = text ? safeJson(text) : null;
    if (response.ok) {
      const etag = response.headers.get('etag');
      return { body: parsed as T, etag: etag === null ? null : etag.replace(/^W\/|"/g, '') };
    }
    const detail = (parsed as Partial<ErrorBody> | null)?.detail ?? (text || `HTTP ${response.status}`);
    throw new CdsError(response.status, detail, codeOf(response.status));
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function queryString(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(key, String(item));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}
