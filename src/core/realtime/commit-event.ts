/**
 * What travels on the bus after each committed tree write (§4), and how a write becomes the
 * update a subscription receives. Events are plain JSON so any bus can carry them.
 */
import { originMark } from '../bus.js';
import { isJsonObject, parseJsonObject } from '../json.js';
import { isAtOrBelow, relativeSegments } from './tree-path.js';
import type { TreeChange, TreeCommit } from './tree-store.js';
import { changeJson, valueAt } from './tree-value.js';

/** A committed write of one project, as published once on the bus. */
export interface TreeCommitEvent extends TreeCommit {
  projectId: number;
}

/** The bus channel of a project's tree commits. */
export function commitChannel(projectId: number): string {
  return `tree.${projectId}`;
}

/**
 * The bus message of a project's commits (a batch's, in version order): one message for them all,
 * built around each change's JSON text (`changeJson`) instead of serializing the values again.
 * `origin` names the publishing instance, whose own feeds had the commits already (`isOwnMessage`).
 */
export function encodeCommits(projectId: number, commits: readonly TreeCommit[], origin?: string): string {
  const encoded = commits.map(({ version, changes }) => {
    const parts = changes.map((change) => `{"path":${JSON.stringify(change.path)},"value":${changeJson(change)}}`);
    return `{"version":${version},"changes":[${parts.join(',')}]}`;
  });
  return `${originMark(origin)}"projectId":${projectId},"commits":[${encoded.join(',')}]}`;
}

/** The bus message of one commit. */
export function encodeCommit(event: TreeCommitEvent): string {
  return encodeCommits(event.projectId, [event]);
}

function decodeOne(projectId: unknown, commit: unknown): TreeCommitEvent | null {
  if (!isJsonObject(commit)) return null;
  const { version, changes } = commit;
  if (!Number.isSafeInteger(projectId) || !Number.isSafeInteger(version) || !Array.isArray(changes)) return null;
  const valid = changes.every((change) => isJsonObject(change) && typeof change.path === 'string' && 'value' in change);
  if (!valid) return null;
  return { projectId: projectId as number, version: version as number, changes: changes as unknown as TreeChange[] };
}

/**
 * The commits carried by a bus message, in order; null when the message is not one (another
 * version of the service). A message of a single commit (`{projectId, version, changes}`) is
 * still understood.
 */
export function decodeCommits(message: string): TreeCommitEvent[] | null {
  const parsed = parseJsonObject(message);
  if (!parsed) return null;
  if (!Array.isArray(parsed.commits)) {
    const single = decodeOne(parsed.projectId, parsed);
    return single && [single];
  }
  const events: TreeCommitEvent[] = [];
  for (const commit of parsed.commits) {
    const event = decodeOne(parsed.projectId, commit);
    if (!event) return null;
    events.push(event);
  }
  return events;
}

/**
 * The update a subscription at `subscribed` receives for `change` (§4): a write at or below it
 * sends the written path and value; a write at an ancestor sends the subscribed path and the new
 * value there; a write beside it sends nothing.
 */
export function updateFor(subscribed: string, change: TreeChange): TreeChange | null {
  if (isAtOrBelow(change.path, subscribed)) return change;
  if (!isAtOrBelow(subscribed, change.path)) return null;
  return { path: subscribed, value: valueAt(change.value, relativeSegments(subscribed, change.path)) };
}
