/**
 * The write side of the document store (§2, §11): each request becomes `DocumentMutation`s that
 * the store applies as one commit, and the answer carries that commit's version (the ETag).
 */

import { randomUUID } from 'node:crypto';
import { v7 as timeOrderedUuid } from 'uuid';
import type { Clock } from '../clock.js';
import { badRequest, validationFailed } from '../errors.js';
import type { HookOrigin, WriteHooks } from '../functions/before-hooks.js';
import { noHooks } from '../functions/before-hooks.js';
import { type JsonObject, unstorableIssue } from '../json.js';
import { childDocumentPath, type DocumentPath, normalizePath, type PathLimits, parseDocumentPath } from '../paths.js';
import type { DocumentAccess, WriteOp } from '../rules/document-access.js';
import type { DocumentCommits } from './document-commits.js';
import type { AppliedMutation, DocumentMutation, DocumentRecord, StoredDocument } from './document-store.js';
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
import { applyInCommit, applyWithHook, type PlannedWrite } from './hooked-writes.js';

/** The access rules (§9) of a caller's writes: its `DocumentAccess`, or null for a trusted caller. */
export type WriteAccess = Pick<DocumentAccess, 'writeGuard'>;

/** Where writes are committed and announced: `DocumentCommits`. */
export type DocumentWriter = Pick<DocumentCommits, 'apply'>;

/** How a write's hook is shown the stored document (`DocumentStore.hooksInCommit`). */
export interface HookShown {
  /** The document as stored now, read before the commit. */
  read(projectId: number, path: string): Promise<StoredDocument | null>;
  /** Whether a single write under a plain-function hook runs it inside the commit instead. */
  inCommit: boolean;
}

/** What a write request carries beyond its path and data. */
export interface WriteRequest {
  /** The `transforms` object of the body, checked here (422). */
  transforms?: Record<string, unknown>;
  precondition?: Precondition;
  access?: WriteAccess | null;
  /** Who asked, when a client did: its writes go through the project's `documents.write` hook. */
  origin?: HookOrigin;
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
    private readonly hooks: WriteHooks = noHooks,
    private readonly shown: HookShown = { read: async () => null, inCommit: false },
  ) {}

  async put(projectId: number, rawPath: string, data: JsonObject, request: WriteRequest): Promise<PutResult> {
    const path = parseDocumentPath(rawPath, this.limits);
    const planned = this.putPlan(path, data, request, ['body']);
    return written((await this.commit(projectId, [planned], request.origin))[0]);
  }

  async create(
    projectId: number,
    path: DocumentPath & { id: string },
    data: JsonObject,
    access?: WriteAccess | null,
    origin?: HookOrigin,
  ): Promise<PutResult> {
    storable(data);
    const guard = access?.writeGuard('create', path, { id: path.id, path: path.path, data }) ?? undefined;
    const mutation = putMutation(path, data, path.id, guard ? { guard } : {});
    const planned: PlannedWrite = {
      op: 'create',
      path,
      mutation,
      data,
      transforms: undefined,
      rawTransforms: undefined,
    };
    return { ...written((await this.commit(projectId, [planned], origin))[0]), created: true };
  }

  async patch(
    projectId: number,
    rawPath: string,
    patch: JsonObject | undefined,
    request: WriteRequest,
  ): Promise<PatchResult> {
    const path = parseDocumentPath(rawPath, this.limits);
    const planned = this.patchPlan(path, patch, request, ['body']);
    const { id, data, version } = written((await this.commit(projectId, [planned], request.origin))[0]);
    return { id, path: path.path, data, version };
  }

  async delete(projectId: number, rawPath: string, request: WriteRequest): Promise<DeleteResult> {
    const path = parseDocumentPath(rawPath, this.limits);
    const [applied] = await this.commit(projectId, [this.deletePlan(path, request)], request.origin);
    return { deleted: path.path, version: applied?.version ?? 0 };
  }

  async batch(
    projectId: number,
    writes: readonly BatchWrite[],
    access?: WriteAccess | null,
    origin?: HookOrigin,
  ): Promise<BatchResult> {
    if (writes.length === 0 || writes.length > MAX_BATCH_WRITES) {
      const msg = `A batch holds 1 to ${MAX_BATCH_WRITES} writes`;
      throw validationFailed([{ loc: ['body', 'writes'], msg, type: 'value_error' }]);
    }
    const planned = writes.map((write, index) => {
      try {
        const plan = this.batchPlan(write, index, access);
        return { ...plan, mutation: batchMutation(index, plan.mutation) };
      } catch (error) {
        throw inBatchWrite(index, error);
      }
    });
    const applied = await this.commit(projectId, planned, origin, true);
    const results = applied.map((item, i): BatchItemResult => {
      if (item.kind === 'deleted') return { deleted: item.path };
      const created = writes[i]?.op === 'put' || writes[i]?.op === 'create' ? { created: item.created } : {};
      return { id: item.id, path: item.path, version: item.version, ...created };
    });
    return { version: applied[0]?.version ?? 0, results };
  }

  /** Commits the writes as one; a client's go through the project's `documents.write` hook first, if it has one. */
  private commit(
    projectId: number,
    planned: readonly PlannedWrite[],
    origin: HookOrigin | undefined,
    batch = false,
  ): Promise<AppliedMutation[]> {
    return (
      (origin && this.hooked(projectId, planned, origin, batch)) ??
      this.store.apply(
        projectId,
        planned.map((write) => write.mutation),
      )
    );
  }

  /**
   * The writes committed under the project's hook, or undefined when it has none. A single write
   * under a plain function runs it inside the commit where the engine says so; the others run it first.
   */
  private hooked(
    projectId: number,
    planned: readonly PlannedWrite[],
    origin: HookOrigin,
    batch: boolean,
  ): Promise<AppliedMutation[]> | undefined {
    // A project without the hook pays one lookup: its writes cost what they did without functions.
    const hook = this.hooks.find(projectId, 'documents.write');
    if (!hook) return undefined;
    const apply = (id: number, mutations: readonly DocumentMutation[]) => this.store.apply(id, mutations);
    const [single] = planned;
    const inCommit = single && !batch && this.shown.inCommit;
    const bound = inCommit ? this.hooks.bind?.(projectId, 'documents.write', origin) : undefined;
    if (single && bound) return bound.then((bind) => applyInCommit(projectId, single, bind, origin, { apply }));
    return applyWithHook(
      projectId,
      planned,
      hook,
      origin,
      { read: this.shown.read, apply, now: () => this.clock.now() },
      batch,
    );
  }

  private batchPlan(write: BatchWrite, index: number, access?: WriteAccess | null): PlannedWrite {
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
        return this.putPlan(path, write.data ?? {}, request, location, { op: 'create', newId: id });
      }
      case 'put':
        return this.putPlan(parseDocumentPath(write.path, this.limits), write.data ?? {}, request, location);
      case 'patch':
        return this.patchPlan(parseDocumentPath(write.path, this.limits), write.data, request, location);
      case 'delete':
        return this.deletePlan(parseDocumentPath(write.path, this.limits), request);
    }
  }

  private putPlan(
    path: DocumentPath,
    data: JsonObject,
    request: WriteRequest,
    location: (string | number)[],
    { op, newId }: { op: 'put' | 'create'; newId: string } = { op: 'put', newId: randomUUID() },
  ): PlannedWrite {
    storable(data, [...location, 'data']);
    const transforms = this.transforms(request, data, location);
    // The rules see the data as the write leaves it; `server_time` is estimated by the clock now.
    const after = transforms ? applyTransforms(data, transforms, this.clock.now()) : data;
    const guard = request.access?.writeGuard(op, path, {
      id: op === 'create' ? newId : path.name,
      path: path.path,
      data: after,
    });
    const mutation = putMutation(path, data, newId, {
      ...(transforms ? { transforms } : {}),
      ...(request.precondition ? { precondition: request.precondition } : {}),
      ...(guard ? { guard } : {}),
    });
    return { op, path, mutation, data, transforms, rawTransforms: request.transforms };
  }

  private patchPlan(
    path: DocumentPath,
    patch: JsonObject | undefined,
    request: WriteRequest,
    location: (string | number)[],
  ): PlannedWrite {
    if (patch === undefined && request.transforms === undefined) {
      throw validationFailed([{ loc: [...location, 'data'], msg: 'data or transforms is required', type: 'missing' }]);
    }
    storable(patch ?? {}, [...location, 'data']);
    const transforms = this.transforms(request, patch, location);
    const guard = request.access?.writeGuard('patch', path, null);
    const mutation = patchMutation(path, patch ?? {}, {
      ...(transforms ? { transforms } : {}),
      ...(request.precondition ? { precondition: request.precondition } : {}),
      ...(guard ? { guard } : {}),
    });
    return { op: 'patch', path, mutation, data: patch, transforms, rawTransforms: request.transforms };
  }

  private deletePlan(path: DocumentPath, request: WriteRequest): PlannedWrite {
    const guard = request.access?.writeGuard('delete', path, null) ?? undefined;
    const mutation = deleteMutation(path, {
      ...(guard ? { guard } : {}),
      ...(request.precondition ? { precondition: request.precondition } : {}),
    });
    return { op: 'delete', path, mutation, data: undefined, transforms: undefined, rawTransforms: undefined };
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
