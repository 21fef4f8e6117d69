import type { Clock } from '../../src/core/clock.js';

/** A clock that moves only when told to. */
export class ManualClock implements Clock {
  constructor(private current: number) {}

  now(): number {
    return this.current;
  }

  /** Moves forward by `ms`. */
  advance(ms: number): void {
    this.current += ms;
  }

  /** Jumps to `ms`. */
  set(ms: number): void {
    this.current = ms;
  }
}
