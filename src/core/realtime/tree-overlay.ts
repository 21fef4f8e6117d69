/**
 * The net effect of several tree writes applied one after another, kept in memory so an engine
 * can store a whole batch with one delete and one insert (§3 semantics, as if each write ran
 * alone): which stored leaves are gone and which leaves the batch leaves behind. Deletions only
 * ever concern stored leaves and insertions are the survivors of the batch's own leaves, so the
 * two statements commute.
 */
import type { JsonValue } from '../json.js';
import { ancestorsOf, isAtOrBelow, ROOT_PATH } from './tree-path.js';
import type { TreeLeaf, TreeSet } from './tree-store.js';
import { assembleValue } from './tree-value.js';

/** What a batch removes from the stored leaves of a project. */
export interface TreeDeletions {
  /** Every stored leaf is gone (a write at the root). */
  all: boolean;
  /** Stored leaves at exactly these paths are gone (ancestors that became objects). */
  points: string[];
  /** Stored leaves at or below these paths are gone (replaced subtrees). */
  subtrees: string[];
}

/** One project's tree as the writes applied so far leave it, over what is stored. */
export class TreeOverlay {
  private all = false;
  private readonly subtrees = new Set<string>();
  private readonly points = new Set<string>();
  private readonly leaves = new Map<string, JsonValue>();
  /** The paths of the sets whose leaves are in `leaves`, and every ancestor of one. */
  private readonly setPaths = new Set<string>();
  private readonly setPathsAndAncestors = new Set<string>();

  /**
   * Applies one write's sets (no path a prefix of another, so ancestors, subtrees and new leaves
   * can go in that order, as the engines apply one write).
   */
  apply(sets: readonly TreeSet[]): void {
    for (const set of sets) {
      if (set.leaves.length === 0) continue;
      for (const ancestor of ancestorsOf(set.path)) {
        this.points.add(ancestor);
        this.leaves.delete(ancestor);
      }
    }
    for (const set of sets) this.clear(set.path);
    for (const set of sets) {
      if (set.leaves.length === 0) continue;
      for (const leaf of set.leaves) this.leaves.set(leaf.path, leaf.value);
      this.setPaths.add(set.path);
      this.setPathsAndAncestors.add(set.path);
      for (const ancestor of ancestorsOf(set.path)) this.setPathsAndAncestors.add(ancestor);
    }
  }

  /** The value at `path` now, given the stored leaves at and below it (read before the batch). */
  valueAt(path: string, stored: readonly TreeLeaf[]): JsonValue {
    const leaves: TreeLeaf[] = stored.filter((leaf) => !this.removes(leaf.path));
    for (const [at, value] of this.leaves) if (isAtOrBelow(at, path)) leaves.push({ path: at, value });
    return assembleValue(path, leaves);
  }

  /** The stored leaves the batch removes. */
  get deletions(): TreeDeletions {
    const subtrees = [...this.subtrees].filter((path) => !ancestorsOf(path).some((a) => this.subtrees.has(a)));
    const points = [...this.points].filter((path) => !this.removedBySubtree(path));
    return { all: this.all, points: this.all ? [] : points, subtrees: this.all ? [] : subtrees };
  }

  /** The leaves the batch leaves behind, each to insert (or to replace a stored leaf at its path). */
  get insertions(): TreeLeaf[] {
    return [...this.leaves].map(([path, value]) => ({ path, value }));
  }

  /** Whether the stored leaf at `path` is gone. */
  private removes(path: string): boolean {
    return this.all || this.points.has(path) || this.removedBySubtree(path);
  }

  private removedBySubtree(path: string): boolean {
    return this.subtrees.has(path) || ancestorsOf(path).some((ancestor) => this.subtrees.has(ancestor));
  }

  private clear(path: string): void {
    if (path === ROOT_PATH) {
      this.all = true;
      this.leaves.clear();
      return;
    }
    this.subtrees.add(path);
    // A leaf at or below `path` lies below a set's path on the same line as `path`: without one,
    // there is nothing to scan for (writes to distinct paths stay linear in the batch's size).
    const overlaps = this.setPathsAndAncestors.has(path) || ancestorsOf(path).some((a) => this.setPaths.has(a));
    if (!overlaps) return;
    for (const at of this.leaves.keys()) if (isAtOrBelow(at, path)) this.leaves.delete(at);
  }
}
