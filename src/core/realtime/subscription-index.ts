/**
 * Subscriptions by path, as a trie of path segments. A write at path W concerns the
 * subscriptions at W and its ancestors (W lies at or below them) and those below W (W is their
 * ancestor); `match` visits exactly those, so its cost follows the depth of W and the number of
 * subscriptions concerned, never the number of subscriptions held.
 */
import { ROOT_PATH, segmentsOf } from './tree-path.js';

/** How a write path relates to a subscribed path. */
export type WriteRelation = 'at-or-below' | 'above';

interface TrieNode<T> {
  path: string;
  parent: TrieNode<T> | null;
  segment: string;
  children: Map<string, TrieNode<T>>;
  holders: Set<T>;
}

function newNode<T>(path: string, parent: TrieNode<T> | null, segment: string): TrieNode<T> {
  return { path, parent, segment, children: new Map(), holders: new Set() };
}

/** A set of (path, holder) pairs answering "who is concerned by a write at this path". */
export class SubscriptionIndex<T> {
  private readonly root = newNode<T>(ROOT_PATH, null, '');
  private count = 0;

  /** Number of (path, holder) pairs held. */
  get size(): number {
    return this.count;
  }

  /** Adds `holder` at `path`; false when it was already there. */
  add(path: string, holder: T): boolean {
    let node = this.root;
    for (const segment of segmentsOf(path)) {
      let child = node.children.get(segment);
      if (!child) {
        child = newNode(node === this.root ? segment : `${node.path}/${segment}`, node, segment);
        node.children.set(segment, child);
      }
      node = child;
    }
    if (node.holders.has(holder)) return false;
    node.holders.add(holder);
    this.count += 1;
    return true;
  }

  /** Removes `holder` from `path`, pruning nodes left empty; false when it was not there. */
  remove(path: string, holder: T): boolean {
    const node = this.find(path);
    if (!node?.holders.delete(holder)) return false;
    this.count -= 1;
    let current: TrieNode<T> | null = node;
    while (current?.parent && current.holders.size === 0 && current.children.size === 0) {
      current.parent.children.delete(current.segment);
      current = current.parent;
    }
    return true;
  }

  /** True when `holder` is held at `path`. */
  has(path: string, holder: T): boolean {
    return this.find(path)?.holders.has(holder) ?? false;
  }

  /** Calls `visit` for each subscription concerned by a write at `path`: ancestors first, then below. */
  match(path: string, visit: (subscribedPath: string, holder: T, relation: WriteRelation) => void): void {
    let node: TrieNode<T> | undefined = this.root;
    // Walks the segments without splitting the path: this runs once per connection per commit.
    let start = 0;
    while (path !== ROOT_PATH && start <= path.length) {
      for (const holder of node.holders) visit(node.path, holder, 'at-or-below');
      const end = path.indexOf('/', start);
      const segment = end === -1 ? path.slice(start) : path.slice(start, end);
      node = node.children.get(segment);
      if (!node) return;
      start = end === -1 ? path.length + 1 : end + 1;
    }
    for (const holder of node.holders) visit(node.path, holder, 'at-or-below');
    for (const child of node.children.values()) this.visitBelow(child, visit);
  }

  private visitBelow(node: TrieNode<T>, visit: (path: string, holder: T, relation: WriteRelation) => void): void {
    // Explicit stack: a subscribed subtree may be 64 levels deep and wide.
    const stack: TrieNode<T>[] = [node];
    for (let current = stack.pop(); current; current = stack.pop()) {
      for (const holder of current.holders) visit(current.path, holder, 'above');
      for (const child of current.children.values()) stack.push(child);
    }
  }

  private find(path: string): TrieNode<T> | undefined {
    let node: TrieNode<T> | undefined = this.root;
    for (const segment of segmentsOf(path)) {
      node = node.children.get(segment);
      if (!node) return undefined;
    }
    return node;
  }
}
