import type { AppReport } from '../constructs/app-hook';

/** An error that ended a user's app, without its stack trace. */
export interface AppCrash {
  readonly name: string;
  readonly message: string;
  /** A FleetformError's path. */
  readonly path?: string;
  readonly hint?: string;
  /** The first frame in the user's own code, e.g. `main.ts:12:5`. */
  readonly location?: string;
}

/** What the app process writes to FLEETFORM_REPORT_FILE when it exits. */
export interface ChildReport {
  readonly apps: readonly AppReport[];
  /** The error that ended the app, uncaught. */
  readonly crash?: AppCrash;
  /** An error of fleetform's own while checking the app (never the app's). */
  readonly checkFailure?: AppCrash;
}
