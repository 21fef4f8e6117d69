/**
 * The document writes of §2 and §11 as `DocumentMutation`s: what each write decides, inside the
 * commit, from the document as stored there (access rules, preconditions, transforms, 404). The
 * engine only reads, calls `decide` and stores what it returns.
 */
import { AppError, conflict, notFound } from '../errors.js';
import { FunctionRejection } from '../functions/functions-module.js';
import type { JsonObject } from '../json.js';
import type { DocumentPath } from '../paths.js';
import type { DocumentChange, DocumentMutation, DocumentRecord, StoredDocument } from './document-store.js';
import { applyTransforms, type FieldTransform } from './field-transforms.js';

/** Versions an `If-Match` / `If-None-Match` lists, or `*` (any existing document). */
export type VersionMatch = '*' | readonly number[];

/** The preconditions of a write (§11): `If-Match` and `If-None-Match`. */
export interface Precondition {
  ifMatch?: VersionMatch;
  ifNoneMatch?: VersionMatch;
}

export const DOCUMENT_NOT_FOUND = 'Document not found';
export const PRECONDITION_FAILED = 'Precondition failed';
export const preconditionFailed = (): AppError => new AppError('precondition_failed', PRECONDITION_FAILED);

/**
 * The versions an ETag list names: `*`, or `"5", "7"` (quoted; a version may also come bare, as
 * JSON writes it). A weak or unparsable tag names no version, so it never matches.
 */
export function parseVersionTags(text: string): VersionMatch {
  const tags = text.split(',').map((tag) => tag.trim());
  if (tags.includes('*')) return '*';
  const versions: number[] = [];
  for (const tag of tags) {
    const match = /^"?(\d{1,15})"?$/.exec(tag);
    if (match) versions.push(Number(match[1]));
  }
  return versions;
}

function matches(match: VersionMatch, stored: StoredDocument | null): boolean {
  if (!stored) return false;
  return match === '*' || match.includes(stored.version);
}

/** Throws 412 unless the stored document satisfies the preconditions. */
export function checkPrecondition(precondition: Precondition | undefined, stored: StoredDocument | null): void {
  if (!precondition) return;
  if (precondition.ifMatch !== undefined && !matches(precondition.ifMatch, stored)) throw preconditionFailed();
  if (precondition.ifNoneMatch !== undefined && matches(precondition.ifNoneMatch, stored)) throw preconditionFailed();
}

/**
 * A rules check (§9) run inside the commit: given the stored document and the document as the
 * write would leave it (null for a delete), it throws 403 when the write is denied.
 */
export type WriteGuard = (stored: StoredDocument | null, after: DocumentRecord | null) => void;

/** What a write carries beyond its data. */
export interface WriteOptions {
  precondition?: Precondition;
  transforms?: readonly FieldTransform[];
  guard?: WriteGuard;
  /** Read the stored document even when nothing else needs it (batches: a delete of a missing one fails). */
  readsStored?: boolean;
}

const written = (data: JsonObject, newId: string): DocumentChange => ({ kind: 'write', data, newId });

/** Replaces the data (PUT, or a batch `put`); with `newId` when the document is new. */
export function putMutation(path: DocumentPath, data: JsonObject, newId: string, options: WriteOptions = {}) {
  const mutation: DocumentMutation = {
    path,
    readsStored: Boolean(options.readsStored || options.precondition || options.guard),
    decide(stored, commit) {
      const after = options.transforms ? applyTransforms(data, options.transforms, commit.time) : data;
      options.guard?.(stored, { id: stored?.id ?? newId, path: path.path, data: after });
      checkPrecondition(options.precondition, stored);
      return written(after, newId);
    },
  };
  return mutation;
}

/** Inserts a new document with the id `id`; 409 when the path is taken. */
export function insertMutation(path: DocumentPath, data: JsonObject, id: string): DocumentMutation {
  return {
    path,
    readsStored: true,
    decide(stored) {
      if (stored) throw conflict('A document already exists at this path');
      return written(data, id);
    },
  };
}

/** Shallow-merges `patch` into the stored data, then applies the transforms; 404 when missing. */
export function patchMutation(path: DocumentPath, patch: JsonObject, options: WriteOptions = {}) {
  const mutation: DocumentMutation = {
    path,
    readsStored: true,
    decide(stored, commit) {
      const merged = { ...(stored?.data ?? {}), ...patch };
      const after = options.transforms ? applyTransforms(merged, options.transforms, commit.time) : merged;
      options.guard?.(stored, { id: stored?.id ?? path.name, path: path.path, data: after });
      checkPrecondition(options.precondition, stored);
      if (!stored) throw notFound(DOCUMENT_NOT_FOUND);
      return written(after, stored.id);
    },
  };
  return mutation;
}

/** Deletes the document; 404 when missing. */
export function deleteMutation(path: DocumentPath, options: WriteOptions = {}) {
  const mutation: DocumentMutation = {
    path,
    readsStored: true,
    decide(stored) {
      options.guard?.(stored, null);
      checkPrecondition(options.precondition, stored);
      if (!stored) throw notFound(DOCUMENT_NOT_FOUND);
      return { kind: 'delete' };
    },
  };
  return mutation;
}

/** The same error, its message (and 422 locations) naming the batch write it came from. */
export function inBatchWrite(index: number, error: unknown): unknown {
  if (error instanceof FunctionRejection) {
    return new FunctionRejection(error.status, `writes[${index}]: ${error.detail}`);
  }
  if (!(error instanceof AppError)) return error;
  const issues = error.issues?.map((issue) =>
    issue.loc[0] === 'body' && issue.loc[1] === 'writes'
      ? issue
      : { ...issue, loc: ['body', 'writes', index, ...issue.loc.slice(1)] },
  );
  return new AppError(error.code, `writes[${index}]: ${error.message}`, issues, { cause: error });
}

/** `mutation` whose refusals name the batch write `index`. */
export function batchMutation(index: number, mutation: DocumentMutation): DocumentMutation {
  return {
    path: mutation.path,
    readsStored: true,
    decide(stored, commit) {
      try {
        return mutation.decide(stored, commit);
      } catch (error) {
        throw inBatchWrite(index, error);
      }
    },
  };
}
