/**
 * The PostgreSQL statement batch's own rules, over plain functions: what goes into one statement,
 * in which order writes of one key run, and what a failed statement does.
 */
import { describe, expect, it } from 'vitest';
import { StatementBatch } from '../../src/storage/postgres/statement-batch.js';

interface Write {
  key: string;
  value: number;
}

function recordingBatch(fails: (items: Write[]) => boolean = () => false) {
  const statements: string[][] = [];
  const batch = new StatementBatch<Write, string>({
    key: (write) => write.key,
    runMany: async (items) => {
      statements.push(items.map((item) => `${item.key}=${item.value}`));
      if (fails(items)) throw new Error('statement failed');
      return items.map((item) => `many ${item.key}=${item.value}`);
    },
    runOne: async (item) => {
      statements.push([`${item.key}=${item.value}`]);
      if (item.value < 0) throw new Error(`refused ${item.key}`);
      return `one ${item.key}=${item.value}`;
    },
  });
  return { batch, statements };
}

describe('StatementBatch', () => {
  it('sends the writes of one turn as one statement and answers each in order', async () => {
    const { batch, statements } = recordingBatch();
    const results = await Promise.all([1, 2, 3].map((value) => batch.run({ key: `k${value}`, value })));
    expect(results).toEqual(['many k1=1', 'many k2=2', 'many k3=3']);
    expect(statements).toEqual([['k1=1', 'k2=2', 'k3=3']]);
  });

  it('runs a lone write alone, and writes of later turns in statements of their own', async () => {
    const { batch, statements } = recordingBatch();
    expect(await batch.run({ key: 'a', value: 1 })).toBe('one a=1');
    await Promise.all([batch.run({ key: 'b', value: 2 }), batch.run({ key: 'c', value: 3 })]);
    expect(statements).toEqual([['a=1'], ['b=2', 'c=3']]);
  });

  it('puts writes of one key in successive statements, in the order they came', async () => {
    const { batch, statements } = recordingBatch();
    await Promise.all([
      batch.run({ key: 'a', value: 1 }),
      batch.run({ key: 'b', value: 1 }),
      batch.run({ key: 'a', value: 2 }),
      batch.run({ key: 'a', value: 3 }),
      batch.run({ key: 'c', value: 1 }),
    ]);
    expect(statements).toEqual([['a=1', 'b=1', 'c=1'], ['a=2'], ['a=3']]);
  });

  it('when a statement fails, runs each of its writes alone so only the faulty one fails', async () => {
    const { batch, statements } = recordingBatch((items) => items.some((item) => item.value < 0));
    const results = await Promise.allSettled([
      batch.run({ key: 'a', value: 1 }),
      batch.run({ key: 'b', value: -1 }),
      batch.run({ key: 'c', value: 3 }),
    ]);
    expect(results).toEqual([
      { status: 'fulfilled', value: 'one a=1' },
      { status: 'rejected', reason: new Error('refused b') },
      { status: 'fulfilled', value: 'one c=3' },
    ]);
    expect(statements).toEqual([['a=1', 'b=-1', 'c=3'], ['a=1'], ['b=-1'], ['c=3']]);
  });

  it('splits a turn of more than 256 writes into statements of 256 at most', async () => {
    const { batch, statements } = recordingBatch();
    await Promise.all(Array.from({ length: 600 }, (_, i) => batch.run({ key: `k${i}`, value: i })));
    expect(statements.map((statement) => statement.length)).toEqual([256, 256, 88]);
  });
});
