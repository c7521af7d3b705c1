import type { FleetIssue } from './fleet-issue';

/**
 * The link between a running user app and the fleetform command line that started it.
 * The command line preloads a hook under this global symbol; every fleetform construct
 * announces its app to the hook, which asks for the app's report when the process exits.
 * A global symbol (not a module variable) so that it works across copies of the library.
 */
export const APP_HOOK = Symbol.for('fleetform.appHook');

/** What an app declares: its stacks, and its resources counted by Terraform type. */
export interface AppSummary {
  readonly stacks: number;
  /** Resources by Terraform type (`fleetform_machine`), in the order their types first appear. */
  readonly resources: Readonly<Record<string, number>>;
}

/** The summary of several apps run by one process. */
export function addSummaries(a: AppSummary, b: AppSummary): AppSummary {
  const resources: Record<string, number> = { ...a.resources };
  for (const [type, count] of Object.entries(b.resources)) resources[type] = (resources[type] ?? 0) + count;
  return { stacks: a.stacks + b.stacks, resources };
}

/** What a resource of a Terraform type is called in a summary: `fleetform_training_job` is a `training job`. */
export function resourceNoun(type: string): string {
  return type.replace(/^fleetform_/, '').replace(/_/g, ' ');
}

/** `5 machines`, `1 dataset`: each resource type of the summary, counted. */
export function describeResources(summary: AppSummary): string[] {
  return Object.entries(summary.resources).map(([type, count]) => `${count} ${resourceNoun(type)}${count === 1 ? '' : 's'}`);
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
  return hook !== null && typeof hook === 'object' && typeof (hook as AppHook).observe === 'function' ? (hook as AppHook) : undefined;
}
