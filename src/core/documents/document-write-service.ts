/**
 * The write side of the document store (§2, §11): each request becomes `DocumentMutation`s that
 * the store applies as one commit, and the answer carries that commit's version (the ETag).
 */

import { randomUUID } from 'node:crypto';
import { v7 as timeOrderedUuid } from 'uuid';
import type { Clock } from '../clock.js';
import { badRequest, validationFailed } from '../errors.js';
import { type JsonObject, unstorableIssue } from '../json.js';
import { childDocumentPath, type DocumentPath, normalizePath, type PathLimits, parseDocumentPath } from '../paths.js';
import type { DocumentAccess, WriteOp } from '../rules/document-access.js';
import type { DocumentCommits } from './document-commits.js';
import type { AppliedMutation, DocumentMutation, DocumentRecord } from './document-store.js';
import {
  batchMutation,
  deleteMutation,
  inBatchWrite,
  type Precondition,
  parseVersionTags,
  patchMutation,
  putMutation,
} from './document-writes.js';
import { applyTransforms, type FieldTransform, parseTransforms } from './field-transforms.js';

/** The access rules (§9) of a caller's writes: its `DocumentAccess`, or null for a trusted caller. */
export type WriteAccess = Pick<DocumentAccess, 'writeGuard'>;

/** Where writes are committed and announced: `DocumentCommits`. */
export type DocumentWriter = Pick<DocumentCommits, 'apply'>;

/** What a write request carries beyond its path and data. */
export interface WriteRequest {
  /** The `transforms` object of the body, checked here (422). */
  transforms?: Record<string, unknown>;
  precondition?: Precondition;
  access?: WriteAccess | null;
}

export type PutResult = DocumentRecord & { created: boolean; version: number };
export type PatchResult = DocumentRecord & { version: number };
export type DeleteResult = { deleted: string; version: number };

/** One write of `POST /documents/batch`. */
export interface BatchWrite {
  op: WriteOp;
  path: string;
  data?: JsonObject;
  transforms?: Record<string, unknown>;
  if_match?: number | string;
  if_absent?: boolean;
}

export type BatchItemResult = { id: string; path: string; version: number; created?: boolean } | { deleted: string };
export interface BatchResult {
  version: number;
  results: BatchItemResult[];
}

export const MAX_BATCH_WRITES = 500;
const COLLECTION_PATH_MESSAGE = 'Path must point to a collection (odd number of segments)';

/**
 * Rejects data nested deeper than §0 allows or that one of the engines could not store (so both
 * engines accept the same documents); 422 at `loc`. Runs before anything walks the data.
 */
function storable(data: JsonObject, loc: (string | number)[] = ['body', 'data']): JsonObject {
  const issue = unstorableIssue(data, loc);
  if (issue) throw validationFailed([issue]);
  return data;
}

function written(applied: AppliedMutation | undefined): PutResult {
  if (applied?.kind !== 'written') throw new Error('The store did not write the document');
  const { id, path, data, version, created } = applied;
  return { id, path, data, version, created };
}

/** Turns write requests into mutations, has the store apply them, and shapes the answers. */
export class DocumentWrites {
  constructor(
    private readonly store: DocumentWriter,
    private readonly limits: PathLimits,
    private readonly clock: Clock,
  ) {}

  async put(projectId: number, rawPath: string, data: JsonObject, request: WriteRequest): Promise<PutResult> {
    const path = parseDocumentPath(rawPath, this.limits);
    const mutation = this.putMutation(path, data, request, ['body']);
    return written((await this.store.apply(projectId, [mutation]))[0]);
  }

  async create(
    projectId: number,
    path: DocumentPath & { id: string },
    data: JsonObject,
    access?: WriteAccess | null,
  ): Promise<PutResult> {
    storable(data);
    const guard = access?.writeGuard('create', path, { id: path.id, path: path.path, data }) ?? undefined;
    const mutation = putMutation(path, data, path.id, guard ? { guard } : {});
    return { ...written((await this.store.apply(projectId, [mutation]))[0]), created: true };
  }

  async patch(
    projectId: number,
    rawPath: string,
    patch: JsonObject | undefined,
    request: WriteRequest,
  ): Promise<PatchResult> {
    const path = parseDocumentPath(rawPath, this.limits);
    const mutation = this.patchMutation(path, patch, request, ['body']);
    const { id, data, version } = written((await this.store.apply(projectId, [mutation]))[0]);
    return { id, path: path.path, data, version };
  }

  async delete(projectId: number, rawPath: string, request: WriteRequest): Promise<DeleteResult> {
    const path = parseDocumentPath(rawPath, this.limits);
    const guard = request.access?.writeGuard('delete', path, null) ?? undefined;
    const [applied] = await this.store.apply(projectId, [
      deleteMutation(path, {
        ...(guard ? { guard } : {}),
        ...(request.precondition ? { precondition: request.precondition } : {}),
      }),
    ]);
    return { deleted: path.path, version: applied?.version ?? 0 };
  }

  async batch(projectId: number, writes: readonly BatchWrite[], access?: WriteAccess | null): Promise<BatchResult> {
    if (writes.length === 0 || writes.length > MAX_BATCH_WRITES) {
      const msg = `A batch holds 1 to ${MAX_BATCH_WRITES} writes`;
      throw validationFailed([{ loc: ['body', 'writes'], msg, type: 'value_error' }]);
    }
    const mutations = writes.map((write, index) => {
      try {
        return batchMutation(index, this.batchMutation(write, index, access));
      } catch (error) {
        throw inBatchWrite(index, error);
      }
    });
    const applied = await this.store.apply(projectId, mutations);
    const results = applied.map((item, i): BatchItemResult => {
      if (item.kind === 'deleted') return { deleted: item.path };
      const created = writes[i]?.op === 'put' || writes[i]?.op === 'create' ? { created: item.created } : {};
      return { id: item.id, path: item.path, version: item.version, ...created };
    });
    return { version: applied[0]?.version ?? 0, results };
  }

  private batchMutation(write: BatchWrite, index: number, access?: WriteAccess | null): DocumentMutation {
    const location = ['body', 'writes', index];
    const precondition: Precondition = {
      ...(write.if_match !== undefined ? { ifMatch: parseVersionTags(String(write.if_match)) } : {}),
      ...(write.if_absent ? { ifNoneMatch: '*' as const } : {}),
    };
    const request: WriteRequest = {
      ...(write.transforms ? { transforms: write.transforms } : {}),
      precondition,
      access: access ?? null,
    };
    switch (write.op) {
      case 'create': {
        const segments = normalizePath(write.path, this.limits);
        if (segments.length % 2 !== 1) throw badRequest(COLLECTION_PATH_MESSAGE);
        const collection = segments.pop() as string;
        const id = timeOrderedUuid();
        const path = childDocumentPath(segments.join('/'), collection, id, this.limits);
        return this.putMutation(path, write.data ?? {}, request, location, { op: 'create', newId: id });
      }
      case 'put':
        return this.putMutation(parseDocumentPath(write.path, this.limits), write.data ?? {}, request, location);
      case 'patch':
        return this.patchMutation(parseDocumentPath(write.path, this.limits), write.data, request, location);
      case 'delete': {
        const path = parseDocumentPath(write.path, this.limits);
        const guard = access?.writeGuard('delete', path, null) ?? undefined;
        return deleteMutation(path, { precondition, ...(guard ? { guard } : {}) });
      }
    }
  }

  private putMutation(
    path: DocumentPath,
    data: JsonObject,
    request: WriteRequest,
    location: (string | number)[],
    { op, newId }: { op: 'put' | 'create'; newId: string } = { op: 'put', newId: randomUUID() },
  ): DocumentMutation {
    storable(data, [...location, 'data']);
    const transforms = this.transforms(request, data, location);
    // The rules see the data as the write leaves it; `server_time` is estimated by the clock now.
    const after = transforms ? applyTransforms(data, transforms, this.clock.now()) : data;
    const guard = request.access?.writeGuard(op, path, {
      id: op === 'create' ? newId : path.name,
      path: path.path,
      data: after,
    });
    return putMutation(path, data, newId, {
      ...(transforms ? { transforms } : {}),
      ...(request.precondition ? { precondition: request.precondition } : {}),
      ...(guard ? { guard } : {}),
    });
  }

  private patchMutation(
    path: DocumentPath,
    patch: JsonObject | undefined,
    request: WriteRequest,
    location: (string | number)[],
  ): DocumentMutation {
    if (patch === undefined && request.transforms === undefined) {
      throw validationFailed([{ loc: [...location, 'data'], msg: 'data or transforms is required', type: 'missing' }]);
    }
    storable(patch ?? {}, [...location, 'data']);
    const transforms = this.transforms(request, patch, location);
    const guard = request.access?.writeGuard('patch', path, null);
    return patchMutation(path, patch ?? {}, {
      ...(transforms ? { transforms } : {}),
      ...(request.precondition ? { precondition: request.precondition } : {}),
      ...(guard ? { guard } : {}),
    });
  }

  private transforms(
    request: WriteRequest,
    data: JsonObject | undefined,
    location: (string | number)[],
  ): FieldTransform[] | undefined {
    if (request.transforms === undefined) return undefined;
    const transforms = parseTransforms(request.transforms, data, [...location, 'transforms']);
    return transforms.length > 0 ? transforms : undefined;
  }
}
