/**
 * Declared indexes of a collection (§15) and the rule of which `where` clauses and `order_by`
 * an index serves. Engines build each index over the §2 total order of its fields (type rank,
 * then the value) followed by the path, and turn a plan into seeks; the choice is made here.
 */
import { validationFailed } from '../errors.js';
import type { OrderBy, Scalar, WhereClause } from '../where.js';

/** One field of an index: a key path into `data` and its order. */
export interface IndexField {
  field: string[];
  descending: boolean;
}

export type IndexState = 'building' | 'ready' | 'failed';

/** A declared index of one collection of a project. */
export interface DocumentIndex {
  id: number;
  projectId: number;
  collection: string;
  fields: IndexField[];
  state: IndexState;
}

/** The API form of an index field. */
export interface IndexFieldView {
  field: string;
  order: 'asc' | 'desc';
}

/** An index as the admin API shows it. */
export interface IndexView {
  id: number;
  collection: string;
  fields: IndexFieldView[];
  state: IndexState;
}

export const MAX_INDEX_FIELDS = 4;
/** Indexes per project: each one is a database index that every write to its collection maintains. */
export const MAX_INDEXES_PER_PROJECT = 64;
const MAX_FIELD_LENGTH = 256;

export function indexView(index: DocumentIndex): IndexView {
  return { id: index.id, collection: index.collection, fields: index.fields.map(fieldView), state: index.state };
}

export function fieldView(field: IndexField): IndexFieldView {
  return { field: field.field.join('__'), order: field.descending ? 'desc' : 'asc' };
}

/** Checks the `fields` of a declaration (§15: 1–4 fields in the `where` form); 422 otherwise. */
export function parseIndexFields(
  fields: readonly { field: string; order?: 'asc' | 'desc' | undefined }[],
): IndexField[] {
  const issue = (msg: string, at: (string | number)[] = []) =>
    validationFailed([{ loc: ['body', 'fields', ...at], msg, type: 'value_error' }]);
  if (fields.length < 1 || fields.length > MAX_INDEX_FIELDS) {
    throw issue(`An index has 1 to ${MAX_INDEX_FIELDS} fields`);
  }
  const seen = new Set<string>();
  return fields.map((item, i) => {
    const keys = item.field.split('__');
    if (item.field.length > MAX_FIELD_LENGTH || keys.some((key) => key.length === 0 || key.includes('\u0000'))) {
      throw issue("A field is a key path joined with '__' (non-empty keys, at most 256 characters)", [i, 'field']);
    }
    if (seen.has(item.field)) throw issue('A field may appear once in an index', [i, 'field']);
    seen.add(item.field);
    return { field: keys, descending: item.order === 'desc' };
  });
}

/** The identity of a declaration: the same collection, fields and orders is the same index. */
export function indexSignature(collection: string, fields: readonly IndexField[]): string {
  return JSON.stringify([collection, fields.map(fieldView)]);
}

/** The clauses an index seeks on, field by field from its first. */
export interface IndexSeek {
  /** Position of the field in the index. */
  position: number;
  /** The clauses on that field the seek applies (each still checked in full by the query). */
  clauses: WhereClause[];
}

/** How a query uses an index: the seeks, and whether the index already yields the query's order. */
export interface IndexPlan {
  index: DocumentIndex;
  seeks: IndexSeek[];
  /** True when rows come out of the index in the query's order (by `orderBy`, then path), so no sort is needed. */
  ordered: boolean;
}

/** One value or a range on a field's position in the §2 order: `exact` and `isnull:true` fix it. */
const EQUALITY: ReadonlySet<string> = new Set(['exact', 'isnull']);
const RANGE: ReadonlySet<string> = new Set(['gt', 'gte', 'lt', 'lte', 'startswith']);

const sameField = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((key, i) => key === b[i]);

/** The §2 type group of a value ('null', 'boolean', 'number', 'string'). */
export function typeGroup(value: Scalar): 'null' | 'boolean' | 'number' | 'string' {
  if (value === null) return 'null';
  return typeof value as 'boolean' | 'number' | 'string';
}

// A string holding NUL matches nothing stored (PostgreSQL text cannot hold it): left to the full clause.
const hasNul = (value: Scalar) => typeof value === 'string' && value.includes('\u0000');

function isEquality(clause: WhereClause): boolean {
  if (clause.lookup === 'isnull') return clause.value === true;
  if (hasNul(clause.value)) return false;
  return EQUALITY.has(clause.lookup);
}

function isRange(clause: WhereClause): boolean {
  if (hasNul(clause.value) || hasNul(clause.text)) return false;
  if (clause.lookup === 'startswith') return true;
  return RANGE.has(clause.lookup) && (typeof clause.value === 'number' || typeof clause.value === 'string');
}

/** An `in` whose items are all of one type other than null (a set of points on one key). */
function isPointSet(clause: WhereClause): boolean {
  if (clause.lookup !== 'in' || clause.values.length === 0) return false;
  const group = typeGroup(clause.values[0] ?? null);
  return group !== 'null' && clause.values.every((item) => typeGroup(item) === group && !hasNul(item));
}

/** The plan of one index for a query, or null when it serves nothing of it. */
export function planFor(
  index: DocumentIndex,
  where: readonly WhereClause[],
  orderBy: OrderBy | undefined,
): IndexPlan | null {
  const seeks: IndexSeek[] = [];
  let position = 0;
  for (; position < index.fields.length; position++) {
    const field = index.fields[position] as IndexField;
    const onField = where.filter((clause) => sameField(clause.field, field.field));
    const equality = onField.find(isEquality);
    if (equality) {
      seeks.push({ position, clauses: [equality] });
      continue;
    }
    const ranges = onField.filter((clause) => isRange(clause) || isPointSet(clause));
    if (ranges.length > 0) seeks.push({ position, clauses: ranges });
    break;
  }
  // After the fields fixed by equality, the index yields rows by its next field, then the rest, then path.
  const equalities = seeks.filter((seek) => isEquality(seek.clauses[0] as WhereClause)).length;
  const rest = index.fields.slice(equalities);
  // Several points (`in`) come out of the seeks in index order on SQLite only: never counted as ordered.
  const points = seeks.some((seek) => seek.clauses.some((clause) => clause.lookup === 'in'));
  const ordered = points
    ? false
    : orderBy
      ? rest.length === 1 &&
        sameField(rest[0]?.field ?? [], orderBy.field) &&
        rest[0]?.descending === orderBy.descending
      : rest.length === 0;
  if (seeks.length === 0 && !(ordered && orderBy)) return null;
  return { index, seeks, ordered };
}

/** The best ready index of the collection for a query: most fields sought, then order served, then oldest. */
export function chooseIndex(
  indexes: readonly DocumentIndex[],
  where: readonly WhereClause[],
  orderBy: OrderBy | undefined,
): IndexPlan | null {
  let best: IndexPlan | null = null;
  const score = (plan: IndexPlan) => plan.seeks.length * 2 + (plan.ordered ? 1 : 0);
  for (const index of indexes) {
    if (index.state !== 'ready') continue;
    const plan = planFor(index, where, orderBy);
    if (plan && (!best || score(plan) > score(best))) best = plan;
  }
  return best;
}

/** The smallest string above every string starting with `prefix`; null when there is none. */
export function prefixEnd(prefix: string): string | null {
  const chars = [...prefix];
  while (chars.length > 0) {
    const last = (chars.pop() as string).codePointAt(0) as number;
    if (last < 0x10ffff) {
      // Surrogate code points cannot be stored (they are not UTF-8): step over them.
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
      return chars.join('') + String.fromCodePoint(next);
    }
  }
  return null;
}

/** The clauses a plan's seeks decide exactly (the others are checked on every row the seek reads). */
export function exactlySought(plan: IndexPlan | undefined): Set<WhereClause> {
  const exact = new Set<WhereClause>();
  for (const seek of plan?.seeks ?? []) {
    // `exact:null` seeks on rank 0, which holds missing fields too.
    for (const clause of seek.clauses) if (!(clause.lookup === 'exact' && clause.value === null)) exact.add(clause);
  }
  return exact;
}
