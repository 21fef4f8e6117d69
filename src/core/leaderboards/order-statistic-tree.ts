/**
 * An order-statistic treap over rank keys: insert, remove, the count of keys below a key
 * (a rank) and the keys at a position (a page) each take O(log n) expected time. Nodes live
 * in typed arrays (about 44 bytes each, no object per key; a user → node map finds a user's
 * key) so a million keys cost little memory and little garbage-collector pressure.
 *
 * Priorities are independent draws of one continuous distribution (a geometric level plus a
 * uniform fraction), which is all a treap needs for its expected depth. `build` makes a
 * balanced tree from sorted keys in O(n) by giving each node a priority above its children's,
 * so later inserts and removals keep the treap's guarantees.
 */
import { compareRankKeys, type RankKey } from './rank-order.js';

const NIL = 0;

/** A sorted set of rank keys answering rank and position queries in logarithmic time. */
export class OrderStatisticTree {
  private score = new Float64Array(0);
  private updatedAt = new Float64Array(0);
  private userId = new Float64Array(0);
  private priority = new Float64Array(0);
  private left = new Int32Array(0);
  private right = new Int32Array(0);
  private sizes = new Int32Array(0);
  private root = NIL;
  /** Next never-used slot; slot 0 is the nil node. */
  private next = 1;
  private freeList: number[] = [];
  /** Each user's node: a user's key without a walk (a league holds one key per user). */
  private nodeOfUser = new Map<number, number>();
  private splitLeft = NIL;
  private splitRight = NIL;

  constructor(private readonly random: () => number = Math.random) {
    this.grow(64);
  }

  /** How many keys the tree holds. */
  get size(): number {
    return this.sizes[this.root] ?? 0;
  }

  /** Replaces the contents with `keys`, which must be sorted ascending and unique. */
  build(keys: readonly RankKey[]): void {
    this.clear();
    this.grow(keys.length + 1);
    this.root = this.buildRange(keys, 0, keys.length);
  }

  /** Removes every key. */
  clear(): void {
    this.root = NIL;
    this.next = 1;
    this.freeList = [];
    this.nodeOfUser = new Map();
  }

  /** True when the key is present. */
  has(key: RankKey): boolean {
    let t = this.root;
    while (t !== NIL) {
      const c = this.compareTo(key, t);
      if (c === 0) return true;
      t = c < 0 ? this.at(this.left, t) : this.at(this.right, t);
    }
    return false;
  }

  /** The key the tree holds for the user, if any. */
  keyOfUser(userId: number): RankKey | undefined {
    const node = this.nodeOfUser.get(userId);
    return node === undefined ? undefined : this.keyOf(node);
  }

  /** Adds the key; false when it was already present. */
  insert(key: RankKey): boolean {
    if (this.has(key)) return false;
    const node = this.allocate(key);
    this.root = this.insertAt(this.root, node);
    return true;
  }

  /** Removes the key; false when it was absent. */
  remove(key: RankKey): boolean {
    if (!this.has(key)) return false;
    this.root = this.removeAt(this.root, key);
    return true;
  }

  /** How many keys sort strictly before `key` (whether or not `key` is present). */
  countBelow(key: RankKey): number {
    let count = 0;
    let t = this.root;
    while (t !== NIL) {
      if (this.compareTo(key, t) > 0) {
        count += this.at(this.sizes, this.at(this.left, t)) + 1;
        t = this.at(this.right, t);
      } else {
        t = this.at(this.left, t);
      }
    }
    return count;
  }

  /** The keys at positions `offset .. offset + limit - 1` (0-based), in order. */
  slice(offset: number, limit: number): RankKey[] {
    const out: RankKey[] = [];
    if (limit <= 0 || offset >= this.size) return out;
    // The stack holds the next node to emit on top and, below it, the ancestors still to come.
    const stack: number[] = [];
    let t = this.root;
    let index = Math.max(0, offset);
    while (t !== NIL) {
      const leftSize = this.at(this.sizes, this.at(this.left, t));
      if (index < leftSize) {
        stack.push(t);
        t = this.at(this.left, t);
      } else if (index === leftSize) {
        stack.push(t);
        break;
      } else {
        index -= leftSize + 1;
        t = this.at(this.right, t);
      }
    }
    while (stack.length > 0 && out.length < limit) {
      const node = stack.pop() as number;
      out.push(this.keyOf(node));
      for (let c = this.at(this.right, node); c !== NIL; c = this.at(this.left, c)) stack.push(c);
    }
    return out;
  }

  /** Every key in order (tests and debugging). */
  toArray(): RankKey[] {
    return this.slice(0, this.size);
  }

  private buildRange(keys: readonly RankKey[], lo: number, hi: number): number {
    if (lo >= hi) return NIL;
    const mid = (lo + hi) >>> 1;
    const key = keys[mid] as RankKey;
    const node = this.allocate(key);
    const l = this.buildRange(keys, lo, mid);
    const r = this.buildRange(keys, mid + 1, hi);
    this.left[node] = l;
    this.right[node] = r;
    this.sizes[node] = hi - lo;
    // Above both children: the heap order holds, and the level keeps the usual spread of priorities.
    this.priority[node] =
      Math.floor(Math.max(this.at(this.priority, l), this.at(this.priority, r))) + 1 + this.random();
    return node;
  }

  private insertAt(t: number, node: number): number {
    if (t === NIL) return node;
    if (this.at(this.priority, node) > this.at(this.priority, t)) {
      this.split(t, this.keyOf(node));
      this.left[node] = this.splitLeft;
      this.right[node] = this.splitRight;
      this.update(node);
      return node;
    }
    if (this.compareNodes(node, t) < 0) this.left[t] = this.insertAt(this.at(this.left, t), node);
    else this.right[t] = this.insertAt(this.at(this.right, t), node);
    this.sizes[t] = this.at(this.sizes, t) + 1;
    return t;
  }

  private removeAt(t: number, key: RankKey): number {
    const c = this.compareTo(key, t);
    if (c === 0) {
      const merged = this.merge(this.at(this.left, t), this.at(this.right, t));
      if (this.nodeOfUser.get(key.userId) === t) this.nodeOfUser.delete(key.userId);
      this.freeList.push(t);
      return merged;
    }
    if (c < 0) this.left[t] = this.removeAt(this.at(this.left, t), key);
    else this.right[t] = this.removeAt(this.at(this.right, t), key);
    this.sizes[t] = this.at(this.sizes, t) - 1;
    return t;
  }

  /** Splits `t` into keys below `key` (splitLeft) and the rest (splitRight). */
  private split(t: number, key: RankKey): void {
    if (t === NIL) {
      this.splitLeft = NIL;
      this.splitRight = NIL;
      return;
    }
    if (this.compareTo(key, t) > 0) {
      this.split(this.at(this.right, t), key);
      this.right[t] = this.splitLeft;
      this.update(t);
      this.splitLeft = t;
    } else {
      this.split(this.at(this.left, t), key);
      this.left[t] = this.splitRight;
      this.update(t);
      this.splitRight = t;
    }
  }

  /** Joins two treaps where every key of `a` sorts before every key of `b`. */
  private merge(a: number, b: number): number {
    if (a === NIL) return b;
    if (b === NIL) return a;
    if (this.at(this.priority, a) > this.at(this.priority, b)) {
      this.right[a] = this.merge(this.at(this.right, a), b);
      this.update(a);
      return a;
    }
    this.left[b] = this.merge(a, this.at(this.left, b));
    this.update(b);
    return b;
  }

  private update(t: number): void {
    this.sizes[t] = this.at(this.sizes, this.at(this.left, t)) + this.at(this.sizes, this.at(this.right, t)) + 1;
  }

  private allocate(key: RankKey): number {
    let node = this.freeList.pop();
    if (node === undefined) {
      if (this.next >= this.sizes.length) this.grow(this.sizes.length * 2);
      node = this.next++;
    }
    this.score[node] = key.score;
    this.updatedAt[node] = key.updatedAt;
    this.userId[node] = key.userId;
    this.nodeOfUser.set(key.userId, node);
    this.left[node] = NIL;
    this.right[node] = NIL;
    this.sizes[node] = 1;
    this.priority[node] = this.randomPriority();
    return node;
  }

  /** A geometric level (as a skip list's) plus a uniform fraction: continuous, independent draws. */
  private randomPriority(): number {
    let level = 0;
    while (level < 64 && this.random() < 0.5) level++;
    return level + this.random();
  }

  private grow(capacity: number): void {
    if (capacity <= this.sizes.length) return;
    const copy = <T extends Float64Array | Int32Array>(old: T, make: (n: number) => T): T => {
      const fresh = make(capacity);
      fresh.set(old);
      return fresh;
    };
    const f64 = (n: number) => new Float64Array(n);
    const i32 = (n: number) => new Int32Array(n);
    this.score = copy(this.score, f64);
    this.updatedAt = copy(this.updatedAt, f64);
    this.userId = copy(this.userId, f64);
    this.priority = copy(this.priority, f64);
    this.left = copy(this.left, i32);
    this.right = copy(this.right, i32);
    this.sizes = copy(this.sizes, i32);
  }

  private keyOf(t: number): RankKey {
    return { score: this.at(this.score, t), updatedAt: this.at(this.updatedAt, t), userId: this.at(this.userId, t) };
  }

  /** `compareRankKeys(key, key of t)` without allocating a key (this is the hot path). */
  private compareTo(key: RankKey, t: number): number {
    const score = this.at(this.score, t);
    if (key.score !== score) return key.score < score ? -1 : 1;
    const updatedAt = this.at(this.updatedAt, t);
    if (key.updatedAt !== updatedAt) return key.updatedAt < updatedAt ? -1 : 1;
    return key.userId - this.at(this.userId, t);
  }

  private compareNodes(a: number, b: number): number {
    return compareRankKeys(this.keyOf(a), this.keyOf(b));
  }

  /** Typed-array read that satisfies `noUncheckedIndexedAccess` (indexes here are always in range). */
  private at(array: Float64Array | Int32Array, index: number): number {
    return array[index] as number;
  }
}
