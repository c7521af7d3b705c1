import { errorIssue, warningIssue, type Issue } from './issue';

/** A container a custom training job may run in (MLTrainingService.ListSupportedContainers). */
export interface TrainingContainer {
  /** What a job's `container_version` names, e.g. `tf:2.15`. */
  readonly key: string;
  readonly uri: string;
  readonly framework: string;
  readonly description: string;
  /** When the service stops supporting it; absent when it has no end of life. */
  readonly eol?: Date;
}

/** The finding codes of a job's container version. */
export const CONTAINER_VERSION_CODE = 'container-version';
export const CONTAINER_EOL_CODE = 'container-eol';

/**
 * A custom training job's `container_version` against the containers the service lists:
 * one it does not list certainly fails (an error naming the listed keys); one past its end
 * of life at `now` may stop running (a warning). An empty version is the service's default.
 */
export function checkContainerVersion(
  version: string,
  containers: readonly TrainingContainer[],
  now: Date,
  path = 'container_version',
): Issue[] {
  if (version === '') return [];
  const found = containers.find((c) => c.key === version);
  const current = containers.filter((c) => c.eol === undefined || c.eol.getTime() > now.getTime()).map((c) => c.key);
  if (!found) {
    return [
      errorIssue(
        CONTAINER_VERSION_CODE,
        path,
        `container version ${JSON.stringify(version)} is not one the service lists: the job would fail`,
        `set containerVersion to one of: ${containers.map((c) => c.key).join(', ') || 'none listed'}, or leave it out for the service's default`,
      ),
    ];
  }
  if (found.eol !== undefined && found.eol.getTime() <= now.getTime()) {
    return [
      warningIssue(
        CONTAINER_EOL_CODE,
        path,
        `container ${found.key} (${found.description}) reached its end of life on ${found.eol.toISOString().slice(0, 10)}: the service may stop running it`,
        `move to a supported container: ${current.join(', ') || 'none listed'}`,
      ),
    ];
  }
  return [];
}
