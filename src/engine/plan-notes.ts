import type { JsonValue } from './json';

/** What a plan says of a resource besides its change: notes to read, and problems that stop the plan. */

/** A remark attached to a resource in a plan, at an attribute path when it concerns one. */
export interface PlanNote {
  readonly level: 'info' | 'warning';
  readonly path?: string;
  readonly message: string;
  /** A value the note shows below it (e.g. the config a machine will run), secrets masked. */
  readonly value?: JsonValue;
}

/** Something that makes a resource impossible to plan; the plan fails listing every one. */
export interface PlanProblem {
  readonly path: string;
  readonly message: string;
  readonly hint?: string;
  /**
   * The service id of an existing object this resource could stand for (a name or version
   * it takes): front ends name their own import command with it, and an interrupted create
   * that made this very object does not count it as a clash.
   */
  readonly existingId?: string;
}
