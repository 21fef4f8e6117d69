/** The §15 rows-scanned counter and the warning of a query that read more than it returned. */
import { describe, expect, it } from 'vitest';
import { QueryStats, type QueryStatsSink } from '../../src/core/documents/query-stats.js';
import { parseWhere } from '../../src/core/where.js';

function recorder() {
  let now = 0;
  const counted: [string, number][] = [];
  const warnings: Parameters<QueryStatsSink['warn']>[0][] = [];
  const stats = new QueryStats(
    { rowsScanned: (collection, rows) => counted.push([collection, rows]), warn: (details) => warnings.push(details) },
    { now: () => now },
  );
  return { stats, counted, warnings, advance: (ms: number) => (now += ms) };
}

describe('QueryStats', () => {
  const where = parseWhere(['n__gte:5', 's__icontains:A b']);

  it('counts every query and warns once a minute per project and collection, naming the clauses as sent', () => {
    const { stats, counted, warnings, advance } = recorder();
    stats.record(1, 'items', where, { returned: 3, skipped: 0, scanned: 500 });
    stats.record(1, 'items', where, { returned: 3, skipped: 0, scanned: 500 });
    stats.record(2, 'items', where, { returned: 3, skipped: 0, scanned: 500 });
    stats.record(1, 'other', [], { returned: 0, skipped: 0, scanned: 9 });
    expect(counted).toEqual([
      ['items', 500],
      ['items', 500],
      ['items', 500],
      ['other', 9],
    ]);
    expect(warnings.map((w) => [w.projectId, w.collection])).toEqual([
      [1, 'items'],
      [2, 'items'],
      [1, 'other'],
    ]);
    expect(warnings[0]).toEqual({
      projectId: 1,
      collection: 'items',
      where: ['n__gte:5', 's__icontains:A b'],
      returned: 3,
      scanned: 500,
    });
    advance(59_999);
    stats.record(1, 'items', where, { returned: 3, skipped: 0, scanned: 500 });
    expect(warnings).toHaveLength(3);
    advance(1);
    stats.record(1, 'items', where, { returned: 3, skipped: 0, scanned: 500 });
    expect(warnings).toHaveLength(4);
  });

  it('does not warn for a query that read only what it returned and what its offset skipped', () => {
    const { stats, warnings } = recorder();
    stats.record(1, 'items', where, { returned: 10, skipped: 0, scanned: 10 });
    stats.record(1, 'items', where, { returned: 10, skipped: 20, scanned: 30 });
    expect(warnings).toEqual([]);
  });
});
