/** The §8 import's conflict checks and rows (`import-plan.ts`), against what an engine would find (no database). */
import { describe, expect, it } from 'vitest';
import type { ProjectExport } from '../../src/core/transfer/export-format.js';
import { type ImportFound, importLookup, planImport } from '../../src/core/transfer/import-plan.js';

const NOW = Date.parse('2026-11-24T10:00:00.000Z');
const user = (id: number, username: string) => ({ id, username, nickname: username, avatar_url: null, roles: [] });
const board = (slug: string, reset: 'none' | 'daily', entries: { user_id: number; stat_value: number }[]) => ({
  slug,
  name: slug,
  description: '',
  type: 'CONTINUOUS' as const,
  sort: 'desc' as const,
  operator: 'best' as const,
  reset,
  leagues: [{ slug: 'global', name: 'Global', order: 0, min_stat: null, promote_top: null, demote_bottom: null }],
  rewards: [],
  entries: entries.map((e) => ({ ...e, league: 'global', updated_at: '2026-11-22T10:00:00.000Z' })),
  assignments: [],
});
const file = (extra: Partial<ProjectExport> = {}): ProjectExport => ({
  format: 'cds-export',
  version: 1,
  documents: [],
  realtime: null,
  users: [],
  leaderboards: [],
  ...extra,
});
const nothing: ImportFound = { users: [], boards: [], webhooks: [] };

describe('the import plan (§8)', () => {
  it('looks up every user the file names, its usernames lower-cased, and its boards', () => {
    const f = file({ users: [user(1, 'Ann')], leaderboards: [board('s', 'none', [{ user_id: 7, stat_value: 1 }])] });
    expect(importLookup(f)).toEqual({ userIds: [1, 7], usernames: ['ann'], boardSlugs: ['s'] });
  });

  it('updates users by id, inserts new ones, and keeps sign-ups above the imported ids', () => {
    const rows = planImport(
      file({ users: [user(3, 'ANN'), user(9, 'bob')] }),
      { users: [{ id: 3, username: 'ann' }], boards: [], webhooks: [] },
      NOW,
    );
    expect(rows.users.map((u) => [u.id, u.exists])).toEqual([
      [3, true],
      [9, false],
    ]);
    expect(rows.nextUserId).toBe(10);
    expect(rows.now).toBe(NOW);
  });

  it('refuses an id that exists with another username, and a username another user holds', () => {
    expect(() =>
      planImport(
        file({ users: [user(3, 'zed')] }),
        { users: [{ id: 3, username: 'ann' }], boards: [], webhooks: [] },
        NOW,
      ),
    ).toThrow(/users\[0\]\.id: user 3 exists with another username \('ann'\)/);
    expect(() =>
      planImport(
        file({ users: [user(1, 'ok'), user(4, 'Ann')] }),
        { users: [{ id: 3, username: 'ann' }], boards: [], webhooks: [] },
        NOW,
      ),
    ).toThrow(/users\[1\]\.username: 'Ann' is taken by user 3/);
  });

  it('refuses an entry of a user that neither the file nor the project has', () => {
    const f = file({
      users: [user(1, 'a')],
      leaderboards: [
        board('s', 'none', [
          { user_id: 1, stat_value: 1 },
          { user_id: 5, stat_value: 2 },
        ]),
      ],
    });
    expect(() => planImport(f, nothing, NOW)).toThrow(
      /leaderboards\[0\]\.entries\[1\]\.user_id: user 5 does not exist/,
    );
    expect(
      planImport(f, { users: [{ id: 5, username: 'e' }], boards: [], webhooks: [] }, NOW).boards[0]?.entries,
    ).toEqual([
      { userId: 1, league: 'global', statValue: 1, score: -1, updatedAt: Date.parse('2026-11-22T10:00:00.000Z') },
      { userId: 5, league: 'global', statValue: 2, score: -2, updatedAt: Date.parse('2026-11-22T10:00:00.000Z') },
    ]);
  });

  it('replaces a board by slug, keeping its period unless its schedule changed', () => {
    const kept = { id: 4, slug: 'same', reset: 'daily' as const, period: { start: 5, end: 10 } };
    const moved = { id: 6, slug: 'moved', reset: 'none' as const, period: { start: 5, end: null } };
    const rows = planImport(
      file({ leaderboards: [board('same', 'daily', []), board('moved', 'daily', []), board('new', 'none', [])] }),
      { users: [], boards: [kept, moved], webhooks: [] },
      NOW,
    );
    expect(rows.boards.map((b) => [b.existingId, b.period])).toEqual([
      [4, { start: 5, end: 10 }],
      [6, { start: Date.parse('2026-11-24T00:00:00.000Z'), end: Date.parse('2026-11-25T00:00:00.000Z') }],
      [null, { start: NOW, end: null }],
    ]);
  });

  it('splits document paths into their parent and collection', () => {
    const rows = planImport(file({ documents: [{ path: 'users/ann/posts/p1', data: { t: 1 } }] }), nothing, NOW);
    expect(rows.documents).toEqual([
      { path: 'users/ann/posts/p1', parent: 'users/ann', collection: 'posts', data: { t: 1 } },
    ]);
  });
});
