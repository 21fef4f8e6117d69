/**
 * The schedules' port (§16): the last tick each schedule ran for each project, so that one instance
 * of the cluster runs each tick. Core decides which tick is due (`schedule-runner.ts`); an engine
 * only stores a tick and moves it forward by compare-and-set.
 */

export interface ScheduleStore {
  /** Every project's id, in order: the projects a module serving `'*'` runs its schedules for. */
  projectIds(): Promise<number[]>;
  /**
   * Records `tick` (epoch ms) as the schedule's last for the project when it has none yet, so that
   * a schedule seen for the first time does not run a tick from before it was loaded.
   */
  begin(projectId: number, schedule: string, tick: number): Promise<void>;
  /**
   * Moves the schedule's last tick for the project to `tick` if the stored one is earlier; true
   * when this call moved it (the caller runs the tick), false when it was there already (another
   * instance took it) or the schedule has no row (`begin` first).
   */
  claim(projectId: number, schedule: string, tick: number): Promise<boolean>;
}
