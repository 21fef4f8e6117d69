/**
 * Which commits record events (§16). A project an after handler serves records every commit
 * (`always`: the handler is known at start). Any other commit records its events when its project
 * has a webhook as the commit's own transaction sees it (`if-webhook`): the engines check the
 * `webhooks` table inside the transaction, and creating a webhook is ordered against that check
 * (SQLite: one writer at a time; PostgreSQL: the creation locks `webhooks` against every commit
 * that read it, see ARCHITECTURE.md), so every commit after a webhook's creation records its events
 * and none before it needs to. A project with neither records nothing.
 */

/** Asked by every commit: does this project record its events whatever the engine finds? */
export interface EventRecording {
  records(projectId: number): boolean;
}

/** How one commit records its events: always, or only if its project has a webhook when it commits. */
export type EventRecord = 'always' | 'if-webhook';

/** No after handlers anywhere: commits record events only for webhooks. */
export const recordsNothing: EventRecording = { records: () => false };

/** How a commit of `projectId` records its events. */
export const recordOf = (recording: EventRecording | undefined, projectId: number): EventRecord =>
  recording?.records(projectId) ? 'always' : 'if-webhook';

/** Records the events of the projects `consumed` says have a consumer (asked once per project). */
export function recordingWhere(consumed: (projectId: number) => boolean): EventRecording {
  const known = new Map<number, boolean>();
  return {
    records(projectId) {
      let records = known.get(projectId);
      if (records === undefined) {
        records = consumed(projectId);
        known.set(projectId, records);
      }
      return records;
    },
  };
}
