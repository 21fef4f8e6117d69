/**
 * Document writes under a `documents.write` before hook (§16). Each write, once its path, body and
 * static rules are checked, is tried on the document as read now (rules, precondition, 404: the
 * checks the commit will make again), then shown to the hook; what the hook returns is stored
 * instead of what was asked, with the write's transforms applied to it. The access rules judge
 * the write the client asked for, not the replacement: the hook is the operator's trusted code.
 *
 * A replacement was made from the document as the hook saw it; when another write changed that
 * document before the commit, the hook runs again on the new one (a few times, then 409).
 *
 * Where the engine reads in process (`DocumentStore.hooksInCommit`), a single write under a hook
 * that is a plain function runs it inside the commit instead (`applyInCommit`): the hook sees the
 * document the commit read, and nothing is read before.
 */
import { AppError, conflict } from '../errors.js';
import type { BoundHook, HookOrigin, RunHook } from '../functions/before-hooks.js';
import { unusableReplacement } from '../functions/before-hooks.js';
import type { DocumentWriteArgument, StoredDocumentArgument } from '../functions/functions-module.js';
import { isJsonObject, type JsonObject, unstorableReason } from '../json.js';
import type { DocumentPath } from '../paths.js';
import type { AppliedMutation, DocumentChange, DocumentMutation, StoredDocument } from './document-store.js';
import { inBatchWrite } from './document-writes.js';
import { applyTransforms, type FieldTransform } from './field-transforms.js';

/** A write checked and turned into its mutation, with what a hook is shown of it. */
export interface PlannedWrite {
  op: DocumentWriteArgument['op'];
  path: DocumentPath;
  mutation: DocumentMutation;
  /** PUT's or create's data, PATCH's patch; undefined for a delete (or a PATCH of transforms alone). */
  data: JsonObject | undefined;
  transforms: readonly FieldTransform[] | undefined;
  /** The `transforms` of the request, as the hook is shown them. */
  rawTransforms: Record<string, unknown> | undefined;
}

/** What the hooked writes use. */
export interface HookedWriteDeps {
  read(projectId: number, path: string): Promise<StoredDocument | null>;
  apply(projectId: number, mutations: readonly DocumentMutation[]): Promise<AppliedMutation[]>;
  now(): number;
}

/** Thrown in a commit when the document changed since its hook saw it. */
class ChangedSinceHook extends Error {}

const ATTEMPTS = 3;

/** Runs the hook on every write (`batch`: their refusals name the write), then commits them as one. */
export async function applyWithHook(
  projectId: number,
  planned: readonly PlannedWrite[],
  hook: RunHook<'documents.write'>,
  origin: HookOrigin,
  deps: HookedWriteDeps,
  batch: boolean,
): Promise<AppliedMutation[]> {
  for (let attempt = 1; ; attempt++) {
    const mutations = await hookedMutations(projectId, planned, hook, origin, deps, batch);
    try {
      return await deps.apply(projectId, mutations);
    } catch (error) {
      if (!(error instanceof ChangedSinceHook)) throw error;
      if (attempt === ATTEMPTS) throw conflict('The document kept changing while its hook ran; try again');
    }
  }
}

/** Thrown in a commit by a hook that answered with a promise: the write commits once it settles. */
class AnsweredLater extends Error {
  constructor(
    readonly answer: Promise<unknown>,
    readonly seen: StoredDocument | null,
  ) {
    super('the hook answered with a promise');
    // Awaited once the commit has given this up; a rejection before that is not unhandled.
    answer.catch(() => undefined);
  }
}

/**
 * One write whose hook runs inside the commit, on the document the commit read, after the rules,
 * precondition and 404 checks: the hook's answer decides what is stored. A hook that answers with
 * a promise gives the commit up; the write then commits with its answer, on the document it saw.
 */
export async function applyInCommit(
  projectId: number,
  write: PlannedWrite,
  hook: BoundHook<'documents.write'>,
  origin: HookOrigin,
  deps: Pick<HookedWriteDeps, 'apply'>,
): Promise<AppliedMutation[]> {
  for (let attempt = 1; ; attempt++) {
    let later: AnsweredLater;
    try {
      return await deps.apply(projectId, [hookedInCommit(write, hook, origin)]);
    } catch (error) {
      if (!(error instanceof AnsweredLater)) throw error;
      later = error;
    }
    const replacement = await later.answer;
    const mutation =
      replacement === undefined
        ? write.mutation
        : replaced(write, usableReplacement(write, replacement, origin), later.seen?.version ?? null);
    try {
      return await deps.apply(projectId, [mutation]);
    } catch (error) {
      if (!(error instanceof ChangedSinceHook)) throw error;
      if (attempt === ATTEMPTS) throw conflict('The document kept changing while its hook ran; try again');
    }
  }
}

function hookedInCommit(write: PlannedWrite, hook: BoundHook<'documents.write'>, origin: HookOrigin): DocumentMutation {
  const { mutation, transforms } = write;
  return {
    path: mutation.path,
    readsStored: true,
    decide(stored, commit) {
      const change = mutation.decide(stored, commit);
      const answer = hook(hookArgument(write, stored));
      if (answer instanceof Promise) throw new AnsweredLater(answer, stored);
      if (answer === undefined) return change;
      const data = usableReplacement(write, answer, origin);
      if (change.kind !== 'write') throw new AppError('failed', 'A replaced write must store a document');
      return {
        kind: 'write',
        data: transforms ? applyTransforms(data, transforms, commit.time) : data,
        newId: change.newId,
      };
    },
  };
}

/** The document each write of a commit finds: as read, or as an earlier write of the same commit leaves it. */
type Seen = { stored: StoredDocument | null; fromThisCommit: boolean };

async function hookedMutations(
  projectId: number,
  planned: readonly PlannedWrite[],
  hook: RunHook<'documents.write'>,
  origin: HookOrigin,
  deps: HookedWriteDeps,
  batch: boolean,
): Promise<DocumentMutation[]> {
  const seen = new Map<string, Seen>();
  const mutations: DocumentMutation[] = [];
  for (const [index, write] of planned.entries()) {
    const path = write.path.path;
    const before = seen.get(path) ?? { stored: await deps.read(projectId, path), fromThisCommit: false };
    const { stored } = before;
    // An earlier write of this commit decides what this one finds; the commit checks it there.
    const change = before.fromThisCommit ? null : write.mutation.decide(stored, { version: 0, time: deps.now() });
    let replacement: unknown;
    try {
      replacement = await hook(origin, hookArgument(write, stored));
    } catch (error) {
      throw batch ? inBatchWrite(index, error) : error;
    }
    // The commit may decide on the document read here while it is still the stored one.
    const read = before.fromThisCommit ? {} : { seen: stored };
    if (replacement === undefined) {
      mutations.push({ ...write.mutation, ...read });
      seen.set(path, { stored: change ? afterChange(write, stored, change) : null, fromThisCommit: true });
      continue;
    }
    const data = usableReplacement(write, replacement, origin);
    mutations.push({
      ...replaced(write, data, before.fromThisCommit ? undefined : (stored?.version ?? null)),
      ...read,
    });
    const id = stored?.id ?? (change?.kind === 'write' ? change.newId : write.path.name);
    seen.set(path, { stored: { id, path, data, version: 0 }, fromThisCommit: true });
  }
  return mutations;
}

/**
 * What the hook is shown. The stored data is the commit's too (`seen`): the hook gets its own copy,
 * made when it first looks (a hook that changed it in place would change the write and the log).
 */
function hookArgument(write: PlannedWrite, stored: StoredDocument | null): DocumentWriteArgument {
  const data =
    write.op === 'delete'
      ? null
      : write.op === 'patch'
        ? { ...(stored ? copyJson(stored.data) : {}), ...(write.data ?? {}) }
        : (write.data ?? {});
  return {
    op: write.op,
    path: write.path.path,
    data,
    transforms: write.rawTransforms ?? null,
    stored: stored ? shownDocument(stored) : null,
  };
}

const copyJson = (data: JsonObject): JsonObject => JSON.parse(JSON.stringify(data)) as JsonObject;

/** `stored` with its `data` copied at the first look (most hooks never look). */
function shownDocument(stored: StoredDocument): StoredDocumentArgument {
  let data: JsonObject | undefined;
  // Accessors of a literal: own and enumerable (spread and JSON see `data`), and cheap to make.
  return {
    id: stored.id,
    path: stored.path,
    version: stored.version,
    get data(): JsonObject {
      data ??= copyJson(stored.data);
      return data;
    },
    set data(value: JsonObject) {
      data = value;
    },
  };
}

/** The document as a write would leave it, for a later write of the same batch to be shown. */
function afterChange(
  write: PlannedWrite,
  stored: StoredDocument | null,
  change: DocumentChange,
): StoredDocument | null {
  if (change.kind === 'delete') return null;
  return { id: stored?.id ?? change.newId, path: write.path.path, data: change.data, version: 0 };
}

function usableReplacement(write: PlannedWrite, replacement: unknown, origin: HookOrigin): JsonObject {
  if (write.op === 'delete') {
    throw unusableReplacement(origin, 'documents.write', 'a delete takes no replacement (return undefined or reject)');
  }
  if (!isJsonObject(replacement)) {
    throw unusableReplacement(origin, 'documents.write', 'a replacement must be an object of JSON data');
  }
  const reason = unstorableReason(replacement);
  if (reason) throw unusableReplacement(origin, 'documents.write', `the replacement cannot be stored: ${reason}`);
  return replacement;
}

/**
 * The write storing `data` instead: the asked write still decides (rules, precondition, 404, the
 * new id), then `data` with the write's transforms is what is stored. `expectedVersion`: the
 * version the hook saw (null: no document), undefined when an earlier write of the commit made it.
 */
function replaced(write: PlannedWrite, data: JsonObject, expectedVersion: number | null | undefined): DocumentMutation {
  const { mutation, transforms } = write;
  return {
    path: mutation.path,
    readsStored: true,
    decide(stored, commit) {
      if (expectedVersion !== undefined && (stored?.version ?? null) !== expectedVersion) throw new ChangedSinceHook();
      const change = mutation.decide(stored, commit);
      if (change.kind !== 'write') throw new AppError('failed', 'A replaced write must store a document');
      return {
        kind: 'write',
        data: transforms ? applyTransforms(data, transforms, commit.time) : data,
        newId: change.newId,
      };
    },
  };
}
