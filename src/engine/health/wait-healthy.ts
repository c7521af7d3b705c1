/** Waiting for one machine to pass a health gate after a config write (a machine's own `health_gate`). */
import { FleetformError } from '../../domain/errors';
import { judgeHealth, stepGate, type HealthVerdict, type MachineStatusReport, type RolloutPolicy } from '../../domain/rollout';
import { heldByMaintenanceWhy } from '../../domain/maintenance';
import type { MachineStatusSource } from './machine-status-source';

/** A machine that did not pass its health gate. */
export class HealthGateError extends FleetformError {}

/**
 * The machine's verdict for `revision`; a machine still on an older revision whose maintenance
 * window holds this one back is pending "held by maintenance", not merely behind.
 */
export async function heldOrJudged(
  source: MachineStatusSource,
  partId: string,
  status: MachineStatusReport,
  revision: string,
  requiredJobs: readonly string[] = [],
): Promise<HealthVerdict> {
  const verdict = judgeHealth(status, revision, requiredJobs);
  if (verdict.health !== 'pending' || status.revision === revision || !source.maintenanceHold) return verdict;
  const held = await source.maintenanceHold(partId, revision);
  return held === undefined ? verdict : { health: 'pending', why: heldByMaintenanceWhy(held) };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves once the machine runs the part's latest config revision and stays healthy for
 * `settle`; throws a HealthGateError naming what failed (module or resource, its error, the
 * newest error log line) when it stays unhealthy for `settle` or is not healthy within `timeout`.
 */
export async function waitHealthy(
  source: MachineStatusSource,
  partId: string,
  machine: string,
  gate: RolloutPolicy['gate'],
): Promise<void> {
  const pollMs = Math.min(1000, Math.max(50, Math.floor(gate.settle_ms / 4)));
  const start = Date.now();
  let track = { writtenAt: start, verdict: 'pending' as HealthVerdict['health'] | 'unreachable', since: start };
  for (;;) {
    const reading = await source.read(partId);
    const verdict = reading.reachable
      ? await heldOrJudged(source, partId, reading.status, reading.latestRevision)
      : { health: 'unreachable' as const, why: `${reading.partUnreadable ? 'its part could not be read: ' : ''}${reading.reason}` };
    const step = stepGate(track, verdict, Date.now(), gate);
    track = step.track;
    if (step.outcome === 'passed') return;
    if (step.outcome === 'failed') {
      const what = step.problems.map((p) => `${p.what}: ${p.error}`).join('; ');
      const log = (await source.errorLines(partId, 1))[0];
      throw new HealthGateError(
        `machine ${machine} did not pass its health gate: ${step.why}${what ? `; ${what}` : ''}${log ? `; log: ${log}` : ''}`,
        {
          path: 'health_gate',
          hint: 'see `fleetform status` for the machine; fix the config (or the module) and apply again, or raise health_gate.timeout',
        },
      );
    }
    await sleep(pollMs);
  }
}
