/**
 * The route schemas' validators (Ajv) and response serializers (fast-json-stringify) that
 * `server.ts` gives Fastify: compiled once per schema object in a process (the same TypeBox schema
 * serves several routes: the `/client` copies, shared bodies), and only when a route first uses
 * them. Compiling every route's schemas at registration was most of a start (about 1.5 s of CPU
 * of each service process, on a busy machine 2–5 s) while a process serves a few of them.
 */
import { Ajv, type Options as AjvOptions, type ValidateFunction } from 'ajv';
import fastJsonStringify from 'fast-json-stringify';
import { addStorableTextKeyword, withInputLimits } from './schema-limits.js';

const ajvBase: AjvOptions = { allErrors: true, useDefaults: true, removeAdditional: false, strict: false };
// Bodies are JSON already: a string where a number belongs is an error, not something to convert.
const bodyAjv = new Ajv({ ...ajvBase, coerceTypes: false });
// Query strings and path parameters are text: `limit=5` must become 5, `limit=abc` a 422.
const textAjv = new Ajv({ ...ajvBase, coerceTypes: 'array' });
addStorableTextKeyword(bodyAjv);
addStorableTextKeyword(textAjv);

const validators = new Map<Ajv, WeakMap<object, ValidateFunction>>([
  [bodyAjv, new WeakMap()],
  [textAjv, new WeakMap()],
]);
const serializers = new WeakMap<object, (data: unknown) => string>();

function compiledValidator(ajv: Ajv, schema: unknown): ValidateFunction {
  const cache = validators.get(ajv) as WeakMap<object, ValidateFunction>;
  let validate = cache.get(schema as object);
  if (!validate) {
    validate = ajv.compile(withInputLimits(schema) as object);
    cache.set(schema as object, validate);
  }
  return validate;
}

/**
 * A validator of one request part that compiles on its first use. Fastify reads `schemaEnv` to
 * hand Ajv the parent object (so defaults and coercions reach a root value) and `errors` after a
 * failed call: both come from the compiled function.
 */
export function lazyValidator(httpPart: string | undefined, schema: unknown): ValidateFunction {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  let compiled: ValidateFunction | undefined;
  const compile = () => {
    compiled ??= compiledValidator(ajv, schema);
    return compiled;
  };
  const validate = ((data: unknown, context?: Parameters<ValidateFunction>[1]) => {
    const run = compile();
    const valid = run(data, context);
    validate.errors = run.errors;
    return valid;
  }) as ValidateFunction;
  Object.defineProperty(validate, 'schemaEnv', { get: () => compile().schemaEnv });
  return validate;
}

/** A response serializer that compiles on its first use. */
export function lazySerializer(schema: unknown): (data: unknown) => string {
  let compiled: ((data: unknown) => string) | undefined;
  return (data) => {
    if (!compiled) {
      compiled = serializers.get(schema as object);
      if (!compiled) {
        compiled = fastJsonStringify(schema as Parameters<typeof fastJsonStringify>[0]);
        serializers.set(schema as object, compiled);
      }
    }
    return compiled(data);
  };
}
