/** What `apply` prints of rollouts, and the report file it writes. */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { eventLine, type RolloutEvents, type RolloutOutcome } from '../engine/rollout/events';
import { describeError } from './describe-error';

/** Prints one line per rollout event. */
export function rolloutPrinter(write: (line: string) => void): RolloutEvents {
  return (e) => {
    // The final outcome is printed with the apply's summary.
    if (e.type !== 'done') write(eventLine(e));
  };
}

/** After the apply: each rollout's outcome, and for a stopped one what failed where. */
export function rolloutSummaryLines(outcomes: readonly RolloutOutcome[]): string[] {
  const lines: string[] = [];
  for (const o of outcomes) {
    if (o.outcome === 'completed') {
      lines.push(`Rollout ${o.name}: completed, ${o.waves.length} wave(s) healthy in ${o.seconds.toFixed(1)}s.`);
      continue;
    }
    lines.push(`Rollout ${o.name} stopped in wave ${o.stoppedAt ?? '?'} of ${o.waves.length}: ${o.reason ?? ''}.`);
    for (const m of o.waves.flatMap((w) => w.machines)) {
      if (m.result === 'failed') {
        lines.push(`  ${m.machine}: ${m.why ?? 'failed'}`);
        for (const p of m.problems ?? []) lines.push(`    ${p.what}: ${p.error}`);
        if (m.log?.[0]) lines.push(`    log: ${m.log[0]}`);
      }
      if (m.rollback) lines.push(`  ${m.machine}: ${m.rollback.ok ? 'rolled back' : 'NOT rolled back'}: ${m.rollback.detail}`);
    }
    const untouched = o.waves.flatMap((w) => w.machines).filter((m) => m.result === 'not reached').length;
    if (untouched > 0) lines.push(`  ${untouched} machine(s) of later waves were not changed.`);
  }
  return lines;
}

export interface ApplyReportInput {
  readonly applied: number;
  readonly failed: ReadonlyArray<{ address: string; error: unknown }>;
  readonly skipped: readonly string[];
  readonly rollouts: readonly RolloutOutcome[];
}

/** Writes the apply's outcome as JSON (`--report FILE`): counts, failures and each rollout wave by wave. */
export async function writeApplyReport(file: string, outcome: ApplyReportInput): Promise<void> {
  const doc = {
    outcome: outcome.failed.length > 0 ? 'failed' : 'applied',
    applied: outcome.applied,
    failed: outcome.failed.map((f) => ({ address: f.address, error: describeError(f.error) })),
    skipped: outcome.skipped,
    rollouts: outcome.rollouts,
  };
  await fs.writeFile(file, `${JSON.stringify(doc, null, 2)}\n`, 'utf8');
}

/** Where a project keeps its rollout journals. */
export function rolloutJournalDir(cwd: string): string {
  return path.join(cwd, '.fleetform', 'rollouts');
}
