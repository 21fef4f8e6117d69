/** Unit tests of the §2 `where` grammar, value coercion and `order_by` parsing. */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { coerceValue, parseOrderBy, parseWhere, parseWhereClause } from '../../src/core/where.js';

/** The AppError a call throws, failing the test when it throws nothing or something else. */
function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected the call to throw');
}

function expectBadRequest(fn: () => unknown, message: string): void {
  const error = thrown(fn);
  expect(error.code).toBe('bad_request');
  expect(error.message).toBe(message);
}

describe('parseWhereClause grammar', () => {
  it('parses field__lookup:value', () => {
    expect(parseWhereClause('score__gte:10')).toEqual({
      field: ['score'],
      lookup: 'gte',
      value: 10,
      text: '10',
      values: [],
    });
  });

  it('splits at the first colon, so the value may hold colons', () => {
    const clause = parseWhereClause('time__exact:12:30:00');
    expect(clause.text).toBe('12:30:00');
    expect(clause.value).toBe('12:30:00');
    expectBadRequest(
      () => parseWhereClause('a:b__exact:1'),
      "Invalid where clause 'a:b__exact:1': expected field__lookup:value",
    );
  });

  it('takes the lookup after the last __ and splits the field into a nested key path', () => {
    expect(parseWhereClause('stats__level__gte:5')).toMatchObject({ field: ['stats', 'level'], lookup: 'gte' });
    expect(parseWhereClause('a__b__c__isnull:true')).toMatchObject({ field: ['a', 'b', 'c'], lookup: 'isnull' });
    // 'a___exact': the last '__' starts at index 2, so the field is 'a_'.
    expect(parseWhereClause('a___exact:1')).toMatchObject({ field: ['a_'], lookup: 'exact' });
    expect(parseWhereClause('k"q__exact:1').field).toEqual(['k"q']);
  });

  it('rejects a missing colon, a missing __ or an empty key', () => {
    for (const clause of ['score__gte', 'score_gte:1', 'score:1', '__exact:1', 'a____exact:1', 'a__b____exact:1', '']) {
      expectBadRequest(
        () => parseWhereClause(clause),
        `Invalid where clause '${clause}': expected field__lookup:value`,
      );
    }
  });

  it('rejects an unknown lookup by name, case-sensitively', () => {
    expectBadRequest(() => parseWhereClause('a__like:x'), "Unsupported lookup 'like'");
    expectBadRequest(() => parseWhereClause('a__EXACT:x'), "Unsupported lookup 'EXACT'");
    expectBadRequest(() => parseWhereClause('a__b__:x'), "Unsupported lookup ''");
  });

  it('accepts every lookup of the §2 table', () => {
    const lookups = ['exact', 'iexact', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'contains', 'icontains', 'startswith'];
    for (const lookup of [...lookups, 'istartswith', 'endswith', 'iendswith']) {
      expect(parseWhereClause(`f__${lookup}:x`).lookup).toBe(lookup);
    }
    expect(parseWhereClause('f__isnull:false').value).toBe(false);
  });

  it('requires true or false for isnull', () => {
    for (const value of ['1', 'yes', 'null', '']) {
      const clause = `f__isnull:${value}`;
      expectBadRequest(() => parseWhereClause(clause), `Invalid where clause '${clause}': isnull takes true or false`);
    }
  });

  it('keeps the raw text beside the coerced value', () => {
    expect(parseWhereClause('title__icontains:2024')).toMatchObject({ value: 2024, text: '2024' });
    expect(parseWhereClause('title__contains:')).toMatchObject({ value: '', text: '' });
  });

  it('splits an in value at commas and coerces each item', () => {
    expect(parseWhereClause('f__in:1,x,true,,null,01,2.5')).toMatchObject({
      text: '1,x,true,,null,01,2.5',
      values: [1, 'x', true, '', null, '01', 2.5],
    });
    expect(parseWhereClause('f__in:solo').values).toEqual(['solo']);
  });
});

describe('coerceValue', () => {
  it.each([
    ['true', true],
    ['false', false],
    ['null', null],
    ['0', 0],
    ['-3', -3],
    ['2.5', 2.5],
    ['1e3', 1000],
    ['1E+3', 1000],
    ['1e-2', 0.01],
    ['-0.5', -0.5],
    ['12345678901234567890', 12345678901234567000],
  ])('%s is %s', (text, expected) => {
    expect(coerceValue(text)).toBe(expected);
  });

  it.each([
    '01',
    '+5',
    '.5',
    '1_000',
    'NaN',
    'Infinity',
    '-Infinity',
    '1.',
    '-',
    '',
    '0x10',
    ' 1',
    '1 ',
    '1e',
    '--1',
    'True',
    'NULL',
    '1e999',
  ])('%j stays a string', (text) => {
    expect(coerceValue(text)).toBe(text);
  });
});

describe('parseWhere', () => {
  it('parses every clause in order', () => {
    const clauses = parseWhere(['a__exact:1', 'b__ne:x']);
    expect(clauses.map((clause) => clause.lookup)).toEqual(['exact', 'ne']);
  });

  it('accepts 20 clauses and rejects 21', () => {
    const clauses = Array.from({ length: 21 }, (_, i) => `f${i}__exact:${i}`);
    expect(parseWhere(clauses.slice(0, 20))).toHaveLength(20);
    expectBadRequest(() => parseWhere(clauses), 'Too many where clauses (max 20)');
  });

  it('accepts no clause at all', () => {
    expect(parseWhere([])).toEqual([]);
  });
});

describe('parseOrderBy', () => {
  it('parses field, -field and nested fields', () => {
    expect(parseOrderBy('score')).toEqual({ field: ['score'], descending: false });
    expect(parseOrderBy('-score')).toEqual({ field: ['score'], descending: true });
    expect(parseOrderBy('-stats__level')).toEqual({ field: ['stats', 'level'], descending: true });
  });

  it('rejects an empty field or key', () => {
    for (const raw of ['', '-', 'a____b', '__a', 'a__'])
      expectBadRequest(() => parseOrderBy(raw), `Invalid order_by '${raw}'`);
  });
});
