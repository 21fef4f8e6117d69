/**
 * Every string a route schema declares (body fields, query and path parameters) is refused with
 * 422 when it holds text PostgreSQL cannot store (NUL, a lone surrogate): both engines then accept
 * the same input, and a nickname or a slug with `\u0000` never reaches SQL (it answered 500 on
 * PostgreSQL). Free-form JSON (document data, tree values) is checked by core instead.
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

/** A copy of `schema` whose every `type: 'string'` node also carries the keyword. */
export function withStorableText(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withStorableText);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    // `const` and `enum` hold data, not schemas.
    copy[key] = key === 'const' || key === 'enum' || key === 'default' ? value : withStorableText(value);
  }
  const type = copy.type;
  if (type === 'string' || (Array.isArray(type) && type.includes('string'))) copy[KEYWORD] = true;
  return copy;
}
