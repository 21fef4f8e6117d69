import { CdsError } from './errors.js';
import type { Http } from './http.js';
import { writeBody } from './transforms.js';
import type { BatchResult, BatchWrite, JsonObject } from './types.js';

/** `ifMatch` / `ifAbsent` of one write of a batch (§11). */
export type BatchWriteOptions = { ifMatch?: number | '*'; ifAbsent?: boolean };

function precondition(options: BatchWriteOptions): Pick<BatchWrite, 'if_match' | 'if_absent'> {
  return {
    ...(options.ifMatch !== undefined ? { if_match: options.ifMatch } : {}),
    ...(options.ifAbsent ? { if_absent: true } : {}),
  };
}

/**
 * `batch()`: up to 500 document writes committed as one transaction (§11): all or none, in order,
 * one version. `commit()` resolves to `{version, results}`; a failing write rejects the whole batch
 * with its status and `writes[<i>]: …` detail.
 */
export class WriteBatch {
  private readonly writes: BatchWrite[] = [];
  private committed = false;

  constructor(private readonly http: Http) {}

  /** Replaces (or creates) the document at `path`; transform helpers in `data` become transforms. */
  set(path: string, data: JsonObject, options: BatchWriteOptions = {}): this {
    return this.add({ op: 'put', path, ...writeBody(data, false), ...precondition(options) });
  }

  /** A new document with a server-chosen id in the collection at `collectionPath` (odd segment count). */
  create(collectionPath: string, data: JsonObject): this {
    return this.add({ op: 'create', path: collectionPath, ...writeBody(data, false) });
  }

  /** Shallow-merges `data` into an existing document. */
  update(path: string, data: JsonObject, options: BatchWriteOptions = {}): this {
    return this.add({ op: 'patch', path, ...writeBody(data, true), ...precondition(options) });
  }

  delete(path: string, options: BatchWriteOptions = {}): this {
    return this.add({ op: 'delete', path, ...precondition(options) });
  }

  commit(): Promise<BatchResult> {
    if (this.committed) return Promise.reject(new CdsError(400, 'Batch already committed', 'invalid-argument'));
    this.committed = true;
    return this.http.request('POST', '/documents/batch', { body: { writes: this.writes } });
  }

  private add(write: BatchWrite): this {
    this.writes.push(write);
    return this;
  }
}
