/**
 * Which projects' commits record events (§16): those with a consumer. A project nobody consumes
 * records nothing (its events would be dropped at once), so its writes cost what they did before
 * the outbox existed.
 */

/** Asked by every commit: does this project record its events? */
export interface EventRecording {
  records(projectId: number): boolean;
}

/** No consumers anywhere: nothing is recorded. */
export const recordsNothing: EventRecording = { records: () => false };

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
