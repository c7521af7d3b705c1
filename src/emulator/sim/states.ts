/** The state numbers of a machine's status (viam.robot.v1), and a machine's log line. */

/** viam.robot.v1 ModuleStatus.State numbers. */
export const ModuleState = { PENDING: 1, STARTING: 2, READY: 3, UNHEALTHY: 4 } as const;
/** viam.robot.v1 ResourceStatus.State numbers. */
export const ResourceState = { UNCONFIGURED: 1, CONFIGURING: 2, READY: 3, UNHEALTHY: 5 } as const;
/** viam.robot.v1 PackageStatus.State numbers. */
export const PackageState = { DOWNLOADING: 1, READY: 4, FAILED: 5 } as const;
/** viam.robot.v1 GetMachineStatusResponse.State numbers. */
export const MachineState = { INITIALIZING: 1, RUNNING: 2 } as const;

export interface LogLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly logger: string;
  readonly message: string;
}

/** A resource as jobs and the maintenance window look at it: its API, name, state and error. */
export interface ResourceView {
  readonly namespace: string;
  readonly type: string;
  readonly subtype: string;
  readonly name: string;
  readonly state: number;
  readonly error: string;
}
