/**
 * Checks real responses against the service's own OpenAPI document: each answer must be
 * documented for its route and status, and its body must validate against that schema (ajv,
 * JSON Schema 2020-12, which OpenAPI 3.1 schemas are).
 */
import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

interface Operation {
  method: string;
  path: string;
  pattern: RegExp;
  /** Literal characters of the path template: the more, the more specific the route. */
  weight: number;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

/** One response that does not match the document. */
export interface ContractFailure {
  call: string;
  status: number;
  problem: string;
}

/** The parts of an OpenAPI document the recorder reads. */
export type OpenApi = {
  paths: Record<string, Record<string, { responses?: Operation['responses'] }>>;
  components?: unknown;
};

function templatePattern(path: string): RegExp {
  const source = path
    .split(/(\{[^}]+\})/)
    .map((part) => {
      if (part === '{*}') return '(.*)';
      if (/^\{[^}]+\}$/.test(part)) return '([^/]+)';
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${source}$`);
}

/** Validates every recorded response against the document and tracks which statuses each operation answered. */
export class ContractRecorder {
  private readonly operations: Operation[] = [];
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly seen = new Map<string, Set<number>>();
  readonly failures: ContractFailure[] = [];

  constructor(private readonly document: OpenApi) {
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(item)) {
        this.operations.push({
          method: method.toUpperCase(),
          path,
          pattern: templatePattern(path),
          weight: path.replace(/\{[^}]+\}/g, '').length,
          responses: op.responses ?? {},
        });
      }
    }
  }

  /** `METHOD path` of every operation in the document. */
  get operationNames(): string[] {
    return this.operations.map((op) => `${op.method} ${op.path}`);
  }

  /** Checks one response to `method url`. */
  record(method: string, url: string, status: number, contentType: string | null, body: unknown): void {
    const path = url.split('?')[0] ?? url;
    const call = `${method} ${url}`;
    const op = this.operations
      .filter((o) => o.method === method && o.pattern.test(path))
      .sort((a, b) => b.weight - a.weight)[0];
    if (!op) {
      this.failures.push({ call, status, problem: 'no operation of the OpenAPI document matches' });
      return;
    }
    const name = `${op.method} ${op.path}`;
    this.seen.set(name, (this.seen.get(name) ?? new Set()).add(status));
    const schema = op.responses[String(status)]?.content?.['application/json']?.schema;
    if (schema === undefined) {
      this.failures.push({ call, status, problem: `${name} has no response schema for ${status}` });
      return;
    }
    if (!contentType?.startsWith('application/json')) {
      this.failures.push({ call, status, problem: `content-type is ${contentType}` });
    }
    const validate = this.validator(`${name} ${status}`, schema);
    if (!validate(body)) {
      this.failures.push({ call, status, problem: `body does not match: ${this.ajv.errorsText(validate.errors)}` });
    }
  }

  /** Operations never answered with a 2xx, or (when they document one) never with a 4xx. */
  uncovered(): string[] {
    const missing: string[] = [];
    for (const op of this.operations) {
      const name = `${op.method} ${op.path}`;
      const statuses = [...(this.seen.get(name) ?? [])];
      if (!statuses.some((s) => s >= 200 && s < 300)) missing.push(`${name}: no success`);
      const documentsErrors = Object.keys(op.responses).some((s) => s.startsWith('4'));
      if (documentsErrors && !statuses.some((s) => s >= 400 && s < 500)) missing.push(`${name}: no error`);
    }
    return missing;
  }

  private validator(key: string, schema: unknown): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      // Compiled with the document's components so that `#/components/...` references resolve.
      validate = this.ajv.compile({ ...(schema as object), components: this.document.components ?? {} });
      this.validators.set(key, validate);
    }
    return validate;
  }
}
