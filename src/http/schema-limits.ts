/**
 * Limits every route schema gets when its validator is compiled (bodies, query and path
 * parameters), so that what validation lets through both engines can store and compare:
 * - a string holding text PostgreSQL cannot store (NUL, a lone surrogate) → 422 (a nickname or a
 *   slug with `\u0000` answered 500 on PostgreSQL); free-form JSON (document data, tree values)
 *   is checked by core instead;
 * - an integer without its own bounds lies within ±(2^53 − 1) (`offset=1e308` answered 500 on
 *   both engines).
 */
import type { Ajv, ErrorObject } from 'ajv';
import { isUnstorable, UNSTORABLE_TEXT } from '../core/json.js';

const KEYWORD = 'storableText';

type Check = ((data: unknown) => boolean) & { errors?: ErrorObject[] };

const validate: Check = (data: unknown) => {
  if (typeof data !== 'string' || !isUnstorable(data)) return true;
  // Ajv fills in instancePath and schemaPath of errors that leave them out.
  validate.errors = [{ keyword: KEYWORD, message: UNSTORABLE_TEXT, params: {} } as Partial<ErrorObject> as ErrorObject];
  return false;
};

/** Registers the keyword on an Ajv instance. */
export function addStorableTextKeyword(ajv: Ajv): void {
  ajv.addKeyword({ keyword: KEYWORD, type: 'string', schemaType: 'boolean', errors: true, compile: () => validate });
}

/** A copy of `schema` with the limits: strings carry the keyword, integers get safe bounds. */
export function withInputLimits(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withInputLimits);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    // `const` and `enum` hold data, not schemas.
    if (key === 'const' || key === 'enum' || key === 'default') copy[key] = value;
    else if (key === 'properties' && isRecord(value) && '*' in value) {
      // A wildcard path (`/documents/docs/*`) is checked by core, which answers 400 `Invalid path segment`.
      const { '*': wildcard, ...others } = value;
      copy[key] = { ...(withInputLimits(others) as object), '*': wildcard };
    } else copy[key] = withInputLimits(value);
  }
  const types = Array.isArray(copy.type) ? copy.type : [copy.type];
  if (types.includes('string')) copy[KEYWORD] = true;
  if (types.includes('integer')) {
    copy.maximum ??= Number.MAX_SAFE_INTEGER;
    copy.minimum ??= -Number.MAX_SAFE_INTEGER;
  }
  return copy;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
