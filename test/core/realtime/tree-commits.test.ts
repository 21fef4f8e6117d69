/**
 * `TreeCommits` over a scripted store: the writes of one turn go to the store together, each
 * project's commits are published as one bus message, and a batch whose commit failed as a whole
 * is committed again write by write, so only the failing write is refused.
 */
import { describe, expect, it } from 'vitest';
import { InProcessBus } from '../../../src/bus/in-process-bus.js';
import { commitChannel, decodeCommits } from '../../../src/core/realtime/commit-event.js';
import { TreeCommits } from '../../../src/core/realtime/tree-commits.js';
import type { TreeStore, TreeWrite, TreeWriteOutcome } from '../../../src/core/realtime/tree-store.js';
import { planSet } from '../../../src/core/realtime/tree-write.js';

const KEEP = { maxWrites: 100, maxAgeMs: 60_000 };

/** A store whose commit fails as a whole when a write sets `bad`, and numbers the others per project. */
function scriptedStore() {
  const batches: number[] = [];
  const versions = new Map<number, number>();
  const commit = async (writes: readonly TreeWrite[]): Promise<TreeWriteOutcome[]> => {
    batches.push(writes.length);
    if (writes.some((write) => write.sets[0]?.path === 'bad')) throw new Error('statement failed');
    return writes.map((write) => {
      const version = (versions.get(write.projectId) ?? 0) + 1;
      versions.set(write.projectId, version);
      const changes = write.sets.map(({ path, value }) => ({ path, value }));
      return { ok: true, commit: { version, changes, value: null } };
    });
  };
  return { store: { commit } as unknown as TreeStore, batches };
}

const write = (projectId: number, path: string): TreeWrite => ({
  projectId,
  sets: [planSet(path, 1)],
  readBack: null,
});

describe('TreeCommits', () => {
  it('commits the writes of one turn together and publishes one message per project', async () => {
    const { store, batches } = scriptedStore();
    const bus = new InProcessBus();
    const heard: string[] = [];
    await bus.subscribe(commitChannel(1), (message) => heard.push(message));
    await bus.subscribe(commitChannel(2), (message) => heard.push(message));
    const commits = new TreeCommits(store, bus, KEEP);
    const results = await Promise.all([
      commits.commit(write(1, 'a')),
      commits.commit(write(2, 'a')),
      commits.commit(write(1, 'b')),
    ]);
    expect(results.map((result) => result.version)).toEqual([1, 1, 2]);
    expect(batches).toEqual([3]);
    expect(heard.map(decodeCommits)).toEqual([
      [
        { projectId: 1, version: 1, changes: [{ path: 'a', value: 1 }] },
        { projectId: 1, version: 2, changes: [{ path: 'b', value: 1 }] },
      ],
      [{ projectId: 2, version: 1, changes: [{ path: 'a', value: 1 }] }],
    ]);
  });

  it('commits each write alone after a failed batch: only the failing one is refused', async () => {
    const { store, batches } = scriptedStore();
    const commits = new TreeCommits(store, new InProcessBus(), KEEP);
    const results = await Promise.allSettled([
      commits.commit(write(1, 'a')),
      commits.commit(write(1, 'bad')),
      commits.commit(write(1, 'c')),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(results[1]).toMatchObject({ reason: new Error('statement failed') });
    expect(batches).toEqual([3, 1, 1, 1]);
  });

  it('starts the next commit with what arrived while one was running', async () => {
    const { store, batches } = scriptedStore();
    const commits = new TreeCommits(store, new InProcessBus(), KEEP);
    const first = commits.commit(write(1, 'a'));
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all([first, commits.commit(write(1, 'b')), commits.commit(write(1, 'c'))]);
    expect(batches).toEqual([1, 2]);
  });
});
