import type { FleetIssue } from './fleet-issue';

/**
 * The link between a running user app and the fleetform command line that started it.
 * The command line preloads a hook under this global symbol; every fleetform construct
 * announces its app to the hook, which asks for the app's report when the process exits.
 * A global symbol (not a module variable) so that it works across copies of the library.
 */
export const APP_HOOK = Symbol.for('fleetform.appHook');

/** Counts of what an app declares. */
export interface AppSummary {
  readonly stacks: number;
  readonly machines: number;
  readonly datasets: number;
  readonly trainingJobs: number;
}

/** Every problem of an app (errors and warnings) and what it declares. */
export interface AppReport {
  readonly issues: readonly FleetIssue[];
  readonly summary: AppSummary;
}

/** What the command line installs under {@link APP_HOOK}. */
export interface AppHook {
  /** Called for every new construct; `report` computes the report of the app rooted at `root`. */
  observe(root: object, report: () => AppReport): void;
}

/** The hook installed in this process, if any. */
export function installedAppHook(): AppHook | undefined {
  const hook: unknown = (globalThis as { [APP_HOOK]?: unknown })[APP_HOOK];
  return hook !== null && typeof hook === 'object' && typeof (hook as AppHook).observe === 'function'
    ? (hook as AppHook)
    : undefined;
}
