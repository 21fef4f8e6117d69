/**
 * Which listeners a commit concerns (§10 cost): listeners are filed under their document, their
 * parent and collection, or their collection alone, so a changed document is matched only against
 * the listeners of its own collection (and parent), never against all listeners of the project.
 */
import type { ListenTarget } from './listen-request.js';
import { locate } from './listener-view.js';

function keyOf(target: ListenTarget): string {
  if (target.kind === 'document') return `d\u0000${target.path}`;
  if (target.parent !== undefined) return `p\u0000${target.parent}\u0000${target.collection}`;
  return `c\u0000${target.collection}`;
}

export class ListenerIndex<T> {
  private readonly entries = new Map<string, Set<T>>();
  private count = 0;

  /** Number of listeners filed. */
  get size(): number {
    return this.count;
  }

  add(target: ListenTarget, listener: T): void {
    const key = keyOf(target);
    let set = this.entries.get(key);
    if (!set) {
      set = new Set();
      this.entries.set(key, set);
    }
    if (!set.has(listener)) this.count++;
    set.add(listener);
  }

  remove(target: ListenTarget, listener: T): void {
    const key = keyOf(target);
    const set = this.entries.get(key);
    if (!set?.delete(listener)) return;
    this.count--;
    if (set.size === 0) this.entries.delete(key);
  }

  /** Every listener filed. */
  all(): T[] {
    return [...this.entries.values()].flatMap((set) => [...set]);
  }

  /** The listeners concerned by changes of these document paths, each once. */
  concerned(paths: Iterable<string>): Set<T> {
    const found = new Set<T>();
    const add = (key: string) => {
      const set = this.entries.get(key);
      if (set) for (const listener of set) found.add(listener);
    };
    for (const path of paths) {
      const { collection, parent } = locate(path);
      add(`d\u0000${path}`);
      add(`p\u0000${parent}\u0000${collection}`);
      add(`c\u0000${collection}`);
    }
    return found;
  }
}
