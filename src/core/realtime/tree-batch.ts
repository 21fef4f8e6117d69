/**
 * A batch of tree writes that read nothing stored (no §11 hook, no read back), planned for an
 * engine that stores it as its net effect: per project, the `TreeOverlay` of its writes and how
 * many versions they take; per write, its version as an offset from its project's version before
 * the batch; per set, the change to log, serialized once. The engine moves each project's version
 * once, deletes and inserts the overlay's leaves, logs the changes, and answers `outcomes`.
 */
import type { JsonValue } from '../json.js';
import { TreeOverlay } from './tree-overlay.js';
import type { TreeChange, TreeWrite, TreeWriteOutcome } from './tree-store.js';
import { serializedChange } from './tree-value.js';

/** Whether `writes` can be stored as their net effect: none reads the stored tree (or an on-disconnect op's row). */
export const readsNothing = (writes: readonly TreeWrite[]): boolean =>
  writes.every((write) => write.hook === undefined && write.readBack === null && write.consumes === undefined);

/** One set of a write, as its project's change log keeps it. */
export interface LoggedChange {
  /** The write's index in the batch. */
  write: number;
  projectId: number;
  /** The write's version offset: 1 for its project's first write of the batch. */
  offset: number;
  seq: number;
  path: string;
  value: JsonValue;
  json: string;
}

/** One project's part of a batch. */
export interface ProjectBatch {
  projectId: number;
  overlay: TreeOverlay;
  /** Versions the project moves on by: its number of writes. */
  writes: number;
}

export interface TreeBatchPlan {
  /** In ascending project id (the order engines lock version rows in). */
  projects: ProjectBatch[];
  /** Every set of every write, in write order. */
  changes: LoggedChange[];
  /** Each write's offset, by the write's index. */
  offsets: number[];
}

/** Plans `writes` (see `readsNothing`), each applied after the ones before it. */
export function planTreeBatch(writes: readonly TreeWrite[]): TreeBatchPlan {
  const projects = new Map<number, ProjectBatch>();
  const changes: LoggedChange[] = [];
  const offsets: number[] = [];
  for (const [index, write] of writes.entries()) {
    const { projectId } = write;
    let project = projects.get(projectId);
    if (!project) {
      project = { projectId, overlay: new TreeOverlay(), writes: 0 };
      projects.set(projectId, project);
    }
    project.overlay.apply(write.sets);
    project.writes += 1;
    const offset = project.writes;
    offsets.push(offset);
    for (const [seq, set] of write.sets.entries())
      changes.push({
        write: index,
        projectId,
        offset,
        seq,
        path: set.path,
        value: set.value,
        json: JSON.stringify(set.value),
      });
  }
  return { projects: [...projects.values()].sort((a, b) => a.projectId - b.projectId), changes, offsets };
}

/** Each write's outcome, given each project's version before the batch (`bases`). */
export function batchOutcomes(
  writes: readonly TreeWrite[],
  plan: TreeBatchPlan,
  bases: ReadonlyMap<number, number>,
): TreeWriteOutcome[] {
  const changesOf: TreeChange[][] = writes.map(() => []);
  for (const change of plan.changes)
    changesOf[change.write]?.push(serializedChange(change.path, change.value, change.json));
  return writes.map((w, i) => ({
    ok: true,
    commit: {
      version: (bases.get(w.projectId) ?? 0) + (plan.offsets[i] ?? 0),
      changes: changesOf[i] ?? [],
      value: null,
    },
  }));
}
