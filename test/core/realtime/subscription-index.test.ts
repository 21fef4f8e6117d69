import { describe, expect, it } from 'vitest';
import { SubscriptionIndex } from '../../../src/core/realtime/subscription-index.js';

function matches(index: SubscriptionIndex<string>, path: string): string[] {
  const found: string[] = [];
  index.match(path, (subscribed, holder, relation) => found.push(`${holder}@${subscribed}:${relation}`));
  return found.sort();
}

describe('subscription index', () => {
  it('finds subscriptions at the written path, above it and below it, and nothing beside', () => {
    const index = new SubscriptionIndex<string>();
    index.add('', 'root');
    index.add('a', 's1');
    index.add('a/b', 's2');
    index.add('a/b/c/d', 's3');
    index.add('a/x', 's4');
    index.add('ab', 's5');
    expect(matches(index, 'a/b')).toEqual([
      'root@:at-or-below',
      's1@a:at-or-below',
      's2@a/b:at-or-below',
      's3@a/b/c/d:above',
    ]);
    expect(matches(index, 'a/b/c')).toEqual([
      'root@:at-or-below',
      's1@a:at-or-below',
      's2@a/b:at-or-below',
      's3@a/b/c/d:above',
    ]);
    expect(matches(index, 'q')).toEqual(['root@:at-or-below']);
  });

  it('adds once, removes and prunes', () => {
    const index = new SubscriptionIndex<string>();
    expect(index.add('a/b', 'h')).toBe(true);
    expect(index.add('a/b', 'h')).toBe(false);
    expect(index.add('a/b', 'g')).toBe(true);
    expect(index.size).toBe(2);
    expect(index.remove('a/b', 'h')).toBe(true);
    expect(index.remove('a/b', 'h')).toBe(false);
    expect(index.has('a/b', 'g')).toBe(true);
    expect(index.remove('a/b', 'g')).toBe(true);
    expect(index.size).toBe(0);
    expect(matches(index, '')).toEqual([]);
  });

  it('matching costs the subscriptions concerned, not all of them', () => {
    const index = new SubscriptionIndex<number>();
    for (let i = 0; i < 50_000; i++) index.add(`rooms/r${i}/state`, i);
    let visited = 0;
    const started = performance.now();
    for (let i = 0; i < 10_000; i++) index.match(`rooms/r${i}/state/x`, () => visited++);
    expect(visited).toBe(10_000);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
