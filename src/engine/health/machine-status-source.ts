/**
 * Where the health of a machine comes from: its part's latest config revision and online
 * state, and the machine's own status. The rollout runner and the health gates read
 * machines through this interface only, one implementation per way to reach a machine.
 */
import type { MachineStatusReport } from '../../domain/rollout';

export type OnlineState = 'online' | 'offline' | 'awaiting setup' | 'unknown';

/** What the app says of the part's machine: seconds since it was last online (when offline), and its last access. */
export interface PartPresence {
  readonly secondsSinceOnline: number;
  readonly lastAccess: string | undefined;
}

/**
 * The fragment error of each import the part's latest config names but its machine runs
 * without (a fragment its organization cannot read), as the service reports it on the
 * machine: the machine runs the rest, so its health is judged on what it runs.
 */
export interface FragmentErrors {
  readonly fragmentErrors?: readonly string[];
}

export type MachineReading = FragmentErrors &
  (
    | {
        readonly reachable: true;
        readonly online: OnlineState;
        /** The revision of the part's latest config write (RFC 3339). */
        readonly latestRevision: string;
        readonly presence?: PartPresence;
        readonly status: MachineStatusReport;
      }
    | {
        readonly reachable: false;
        readonly online: OnlineState;
        readonly latestRevision: string;
        readonly presence?: PartPresence;
        readonly reason: string;
        /** Set when the part itself could not be read (not only the machine's status). */
        readonly partUnreadable?: true;
      }
  );

export interface MachineStatusSource {
  /** The part's latest revision and the machine's status, or why the status could not be read. */
  read(partId: string): Promise<MachineReading>;
  /**
   * The machine's status alone (no part read: online state and latest revision are left
   * `unknown` and empty), for a caller that knows the revision it waits for.
   */
  status(partId: string): Promise<MachineReading>;
  /** The newest error lines of the part's log (newest first), each as `time logger: message`. */
  errorLines(partId: string, limit: number): Promise<string[]>;
  /**
   * Why the machine's maintenance window holds `revision` back (its newest log line saying
   * so names that revision), or undefined when it does not.
   */
  maintenanceHold?(partId: string, revision: string): Promise<string | undefined>;
}
