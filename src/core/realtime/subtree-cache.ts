import { LRUCache } from 'lru-cache';
import { packedSubtreeJson } from './packed-subtree.js';
import { etagOfCanonicalJson } from './tree-atomic.js';
import { isAncestorOf, isAtOrBelow } from './tree-path.js';
import type { TreeStore } from './tree-store.js';

/** A subtree as canonical JSON in UTF-8, its ETag, and the project version it reflects. */
export interface SubtreeJson {
  json: Uint8Array;
  etag: string;
  version: number;
}

/** How much the cache keeps. */
export interface SubtreeCacheOptions {
  /** The bytes of JSON kept in all (0: nothing is kept, every read reads the leaves). */
  maxBytes: number;
  /** Smaller answers are not kept: checking the change log would cost about what reading them does. */
  minBytes?: number;
  /** A kept answer whose project has had more commits since is read again rather than checked. */
  maxCommitsChecked?: number;
}

const DEFAULT_MIN_BYTES = 4096;
const DEFAULT_MAX_COMMITS_CHECKED = 64;

/** True when a change at `changed` can alter the subtree at `path`: it is at, below or above it. */
export function changeReaches(changed: string, path: string): boolean {
  return isAtOrBelow(changed, path) || isAncestorOf(changed, path);
}

/**
 * The JSON of large subtrees kept between GETs (issue 20): a 1,000-leaf read costs the database
 * far more than asking it what changed since. A kept answer is served only when the project's
 * change log, read from the database at each GET, shows no commit since its version at, below or
 * above its path; so a write through any instance or worker is seen at once, without the bus.
 * Otherwise (log trimmed past it, too many commits to check) the leaves are read again.
 */
export class SubtreeJsonCache {
  private readonly kept: LRUCache<string, SubtreeJson> | null;
  private readonly minBytes: number;
  private readonly maxCommitsChecked: number;

  constructor(
    private readonly store: TreeStore,
    options: SubtreeCacheOptions,
  ) {
    this.kept =
      options.maxBytes > 0
        ? new LRUCache({ maxSize: options.maxBytes, sizeCalculation: (entry) => entry.json.length })
        : null;
    this.minBytes = options.minBytes ?? DEFAULT_MIN_BYTES;
    this.maxCommitsChecked = options.maxCommitsChecked ?? DEFAULT_MAX_COMMITS_CHECKED;
  }

  /** The subtree at a normalized path as the database holds it now. */
  async read(projectId: number, path: string): Promise<SubtreeJson> {
    const key = `${projectId}/${path}`;
    const kept = this.kept?.get(key);
    if (kept && (await this.stillCurrent(projectId, path, kept))) return kept;
    const { packed, version } = await this.store.packedLeaves(projectId, path);
    const json = packedSubtreeJson(path, packed);
    const answer = { json, etag: etagOfCanonicalJson(json), version };
    if (this.kept && json.length >= this.minBytes) this.kept.set(key, { ...answer, json: exactCopy(json) });
    else if (kept) this.kept?.delete(key);
    return answer;
  }

  /** Whether no commit since `kept.version` reached `path`; if so, `kept` now stands for the current version. */
  private async stillCurrent(projectId: number, path: string, kept: SubtreeJson): Promise<boolean> {
    const changed = await this.store.changedPathsSince(projectId, kept.version, this.maxCommitsChecked);
    if (!changed || changed.paths.some((at) => changeReaches(at, path))) return false;
    // Concurrent reads may check the same entry: its version only moves forward.
    kept.version = Math.max(kept.version, changed.version);
    return true;
  }
}

/**
 * The bytes alone, copied (a Buffer's `slice` would be another view): the writer's answer views a
 * buffer about 1.5 times its size, which a kept answer would otherwise hold on to uncounted.
 */
function exactCopy(json: Uint8Array): Uint8Array {
  return json.byteLength === json.buffer.byteLength ? json : new Uint8Array(json);
}
