import { describe, expect, it } from 'vitest';
import { QueryNames } from '../../src/storage/postgres/query-names.js';

describe('QueryNames (PostgreSQL query shapes planned once per connection)', () => {
  it('gives each distinct text one name, the same on every call, with the call values', () => {
    const names = new QueryNames('q', 4);
    const first = names.config('SELECT 1 WHERE $1', [1]);
    const second = names.config('SELECT 2 WHERE $1', [2]);
    expect(first).toEqual({ name: 'q_0', text: 'SELECT 1 WHERE $1', values: [1] });
    expect(second.name).toBe('q_1');
    expect(names.config('SELECT 1 WHERE $1', [7])).toEqual({ name: 'q_0', text: 'SELECT 1 WHERE $1', values: [7] });
  });

  it('runs texts past its capacity unnamed, so clients cannot make a connection hold unbounded plans', () => {
    const names = new QueryNames('q', 2);
    names.config('a', []);
    names.config('b', []);
    expect(names.config('c', [3])).toEqual({ text: 'c', values: [3] });
    expect(names.config('c', [3]).name).toBeUndefined();
    expect(names.config('b', []).name).toBe('q_1');
  });
});
