import { encodePath, type Http } from './http.js';
import type { RealtimeSocket, ValueListener } from './socket.js';
import { normalizePath } from './tree.js';

/** `ref(path)`: a node of the realtime tree (§3, §4). */
export class RealtimeRef {
  readonly path: string;

  constructor(
    private readonly http: Http,
    private readonly socket: () => RealtimeSocket,
    path: string,
  ) {
    this.path = normalizePath(path);
  }

  private get url(): string {
    return this.path === '' ? '/realtime/db' : `/realtime/db/${encodePath(this.path)}`;
  }

  /** The value at the path (null when nothing is there). */
  async get(): Promise<unknown> {
    return (await this.http.request<{ value: unknown }>('GET', this.url)).value;
  }

  /** Replaces the subtree; null or {} deletes. Resolves to the value now stored. */
  async set(value: unknown): Promise<unknown> {
    return (await this.http.request<{ value: unknown }>('PUT', this.url, { body: { value } })).value;
  }

  /** Sets each key as a child path (keys may hold `/`; null deletes), atomically. Resolves to the merged value. */
  async update(values: Record<string, unknown>): Promise<unknown> {
    return (await this.http.request<{ value: unknown }>('PATCH', this.url, { body: { value: values } })).value;
  }

  async remove(): Promise<void> {
    await this.http.request('DELETE', this.url);
  }

  /** A child ref. */
  child(path: string): RealtimeRef {
    return new RealtimeRef(this.http, this.socket, `${this.path}/${path}`);
  }

  /**
   * Calls `cb(value, {version})` with the current value, then once per version that touches the
   * path, in commit order, across reconnects. Returns the unsubscribe function.
   */
  onValue(cb: ValueListener): () => void {
    return this.socket().subscribe(this.path, cb);
  }
}
