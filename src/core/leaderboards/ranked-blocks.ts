/**
 * A sorted set of rank keys kept in blocks: runs of at most `capacity` keys, in order, each in one
 * typed array (score, time, user side by side), with a Fenwick tree over the blocks' sizes. A
 * rank is the keys of the blocks before the key's block (O(log m) in a small, hot array) plus its
 * place in that block (one contiguous search); a user's rank starts from the user → block map,
 * so a set of users costs no walk from a root. Inserts and removals move at most one block's
 * keys; a full block splits, a block under a quarter full merges with a neighbour.
 *
 * Against a binary tree of a million keys (about twenty dependent, cache-missing steps per rank),
 * this touches a few cache lines per rank and 24 bytes per key.
 */
import type { RankKey } from './rank-order.js';

/** Keys per block unless told otherwise: a block is 6 KB, a million keys about 5,000 blocks. */
const DEFAULT_CAPACITY = 256;

/** Up to `capacity` keys in order, each field in an array of its own (a user is found by a contiguous scan). */
class Block {
  readonly scores: Float64Array;
  readonly times: Float64Array;
  /** User ids fit 32 bits (ids are at most 2^31 - 1): half the bytes for a user's scan. */
  readonly users: Int32Array;
  size = 0;
  /** The block's position in `blocks` (kept by `reindex`). */
  index = 0;

  constructor(capacity: number) {
    this.scores = new Float64Array(capacity);
    this.times = new Float64Array(capacity);
    this.users = new Int32Array(capacity);
  }

  keyAt(slot: number): RankKey {
    return { score: at(this.scores, slot), updatedAt: at(this.times, slot), userId: at(this.users, slot) };
  }

  /** `compareRankKeys(key, key at slot)` without allocating a key (the hot path). */
  compareAt(key: RankKey, slot: number): number {
    const score = at(this.scores, slot);
    if (key.score !== score) return key.score < score ? -1 : 1;
    const updatedAt = at(this.times, slot);
    if (key.updatedAt !== updatedAt) return key.updatedAt < updatedAt ? -1 : 1;
    return key.userId - at(this.users, slot);
  }

  /** The first slot whose key is not below `key` (`size` when every key is). */
  lowerBound(key: RankKey): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compareAt(key, mid) > 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The slot of the user's key, or -1. */
  slotOfUser(userId: number): number {
    const users = this.users;
    for (let slot = 0; slot < this.size; slot++) if (users[slot] === userId) return slot;
    return -1;
  }

  write(slot: number, key: RankKey): void {
    this.scores[slot] = key.score;
    this.times[slot] = key.updatedAt;
    this.users[slot] = key.userId;
  }

  /** Moves the keys of slots `from .. size - 1` to start at slot `to` (an insert's gap, a removal's close). */
  shift(from: number, to: number): void {
    for (const field of [this.scores, this.times, this.users]) field.copyWithin(to, from, this.size);
  }

  /** Appends `count` keys of `source` from its slot `from`. */
  append(source: Block, from: number, count: number): void {
    this.scores.set(source.scores.subarray(from, from + count), this.size);
    this.times.set(source.times.subarray(from, from + count), this.size);
    this.users.set(source.users.subarray(from, from + count), this.size);
    this.size += count;
  }
}

/** Typed-array read that satisfies `noUncheckedIndexedAccess` (indexes here are always in range). */
const at = (array: Float64Array | Int32Array, index: number): number => array[index] as number;

/** A sorted set of rank keys (one per user) answering rank and position queries in logarithmic time. */
export class RankedBlocks {
  private blocks: Block[] = [];
  /** Fenwick tree over the blocks' sizes, 1-based. */
  private sums = new Int32Array(1);
  private total = 0;
  private blockOfUser = new Map<number, Block>();
  private readonly capacity: number;

  constructor(capacity = DEFAULT_CAPACITY) {
    this.capacity = Math.max(4, capacity);
  }

  /** How many keys the set holds. */
  get size(): number {
    return this.total;
  }

  /** Replaces the contents with `keys`, which must be sorted ascending and unique. */
  build(keys: readonly RankKey[]): void {
    this.clear();
    // Three quarters full: room for inserts before the first splits.
    const fill = Math.max(1, Math.floor((this.capacity * 3) / 4));
    for (let from = 0; from < keys.length; from += fill) {
      const block = new Block(this.capacity);
      for (const key of keys.slice(from, from + fill)) this.place(block, block.size++, key);
      this.blocks.push(block);
    }
    this.total = keys.length;
    this.reindex();
  }

  /** Removes every key. */
  clear(): void {
    this.blocks = [];
    this.sums = new Int32Array(1);
    this.total = 0;
    this.blockOfUser = new Map();
  }

  /** The user's key and how many keys sort before it, if the set holds one. */
  placeOfUser(userId: number): { key: RankKey; below: number } | undefined {
    const block = this.blockOfUser.get(userId);
    const slot = block ? block.slotOfUser(userId) : -1;
    if (!block || slot < 0) return undefined;
    return { key: block.keyAt(slot), below: this.before(block.index) + slot };
  }

  /** Adds the key; false when it was already present. */
  insert(key: RankKey): boolean {
    if (this.blocks.length === 0) {
      this.blocks.push(new Block(this.capacity));
      this.reindex();
    }
    const index = Math.min(this.blockFor(key), this.blocks.length - 1);
    const block = this.blocks[index] as Block;
    const slot = block.lowerBound(key);
    if (slot < block.size && block.compareAt(key, slot) === 0) return false;
    block.shift(slot, slot + 1);
    this.place(block, slot, key);
    block.size++;
    this.total++;
    this.add(index, 1);
    if (block.size === this.capacity) this.split(index);
    return true;
  }

  /** Removes the key; false when it was absent. */
  remove(key: RankKey): boolean {
    const index = this.blockFor(key);
    const block = this.blocks[index];
    if (!block) return false;
    const slot = block.lowerBound(key);
    if (slot >= block.size || block.compareAt(key, slot) !== 0) return false;
    block.shift(slot + 1, slot);
    block.size--;
    this.total--;
    this.add(index, -1);
    // The user's entry goes with their key, unless the user's other key (a move being applied) is here too.
    if (this.blockOfUser.get(key.userId) === block && block.slotOfUser(key.userId) < 0) {
      this.blockOfUser.delete(key.userId);
    }
    if (block.size < this.capacity / 4) this.rebalance(index);
    return true;
  }

  /** How many keys sort strictly before `key` (whether or not `key` is present). */
  countBelow(key: RankKey): number {
    const index = this.blockFor(key);
    const block = this.blocks[index];
    return block ? this.before(index) + block.lowerBound(key) : this.total;
  }

  /** The keys at positions `offset .. offset + limit - 1` (0-based), in order. */
  slice(offset: number, limit: number): RankKey[] {
    const out: RankKey[] = [];
    if (limit <= 0 || offset >= this.total) return out;
    let { index, slot } = this.position(Math.max(0, offset));
    for (let block = this.blocks[index]; block && out.length < limit; block = this.blocks[++index], slot = 0) {
      for (; slot < block.size && out.length < limit; slot++) out.push(block.keyAt(slot));
    }
    return out;
  }

  /** Every key in order (tests and debugging). */
  toArray(): RankKey[] {
    return this.slice(0, this.total);
  }

  /** The first block whose last key is not below `key`; `blocks.length` when the key is above them all. */
  private blockFor(key: RankKey): number {
    let lo = 0;
    let hi = this.blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const block = this.blocks[mid] as Block;
      // (A block is empty only inside `insert`, as the first one: any key belongs there.)
      if (block.size > 0 && block.compareAt(key, block.size - 1) > 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private place(block: Block, slot: number, key: RankKey): void {
    block.write(slot, key);
    this.blockOfUser.set(key.userId, block);
  }

  /** Splits a full block into two halves. */
  private split(index: number): void {
    const block = this.blocks[index] as Block;
    const half = block.size >>> 1;
    const upper = new Block(this.capacity);
    upper.append(block, half, block.size - half);
    block.size = half;
    for (let slot = 0; slot < upper.size; slot++) this.blockOfUser.set(at(upper.users, slot), upper);
    this.blocks.splice(index + 1, 0, upper);
    this.reindex();
  }

  /** Merges a block under a quarter full with a neighbour, or shares their keys evenly when together they are many. */
  private rebalance(index: number): void {
    if (this.blocks.length === 1) {
      if (this.total === 0) this.clear();
      return;
    }
    const leftIndex = index > 0 ? index - 1 : index;
    const left = this.blocks[leftIndex] as Block;
    const right = this.blocks[leftIndex + 1] as Block;
    const both = new Block(left.size + right.size);
    both.append(left, 0, left.size);
    both.append(right, 0, right.size);
    const blocks = both.size <= (this.capacity * 3) / 4 ? [left] : [left, right];
    const per = Math.ceil(both.size / blocks.length);
    blocks.forEach((block, i) => {
      block.size = 0;
      block.append(both, i * per, Math.min(per, both.size - i * per));
      for (let slot = 0; slot < block.size; slot++) this.blockOfUser.set(at(block.users, slot), block);
    });
    if (blocks.length === 1) this.blocks.splice(leftIndex + 1, 1);
    this.reindex();
  }

  /** Renumbers the blocks and rebuilds the Fenwick tree over their sizes: O(m), after a split or a merge. */
  private reindex(): void {
    const sums = new Int32Array(this.blocks.length + 1);
    this.blocks.forEach((block, i) => {
      block.index = i;
      sums[i + 1] = block.size;
    });
    for (let i = 1; i < sums.length; i++) {
      const parent = i + (i & -i);
      if (parent < sums.length) sums[parent] = (sums[parent] as number) + (sums[i] as number);
    }
    this.sums = sums;
  }

  private add(index: number, delta: number): void {
    for (let i = index + 1; i < this.sums.length; i += i & -i) this.sums[i] = (this.sums[i] as number) + delta;
  }

  /** How many keys the blocks before `index` hold. */
  private before(index: number): number {
    let sum = 0;
    for (let i = index; i > 0; i -= i & -i) sum += this.sums[i] as number;
    return sum;
  }

  /** The block and slot of position `offset` (< size): a descent of the Fenwick tree. */
  private position(offset: number): { index: number; slot: number } {
    let index = 0;
    let rest = offset;
    for (let step = 1 << Math.floor(Math.log2(this.sums.length)); step > 0; step >>= 1) {
      const next = index + step;
      if (next < this.sums.length && (this.sums[next] as number) <= rest) {
        index = next;
        rest -= this.sums[next] as number;
      }
    }
    return { index, slot: rest };
  }
}
