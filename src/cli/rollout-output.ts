/** What `apply` prints of rollouts, and the report file it writes. */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { waveEndText } from '../domain/rollout';
import {
  eventLine,
  fileJournalStore,
  type RolloutEvents,
  type RolloutJournalStore,
  type RolloutOutcome,
  type StateBackend,
} from '../engine';
import { describeError } from './describe-error';

/** Prints one line per rollout event. */
export function rolloutPrinter(write: (line: string) => void): RolloutEvents {
  return (e) => {
    // The final outcome is printed with the apply's summary.
    if (e.type !== 'done') write(eventLine(e));
  };
}

/**
 * A progress board for a terminal: each wave's line is updated in place while its machines
 * are gated (healthy, failed, waiting), and kept once the wave passes or the rollout stops;
 * failures and rollbacks are printed as lines of their own.
 */
export function rolloutBoard(stream: { write(text: string): unknown }): RolloutEvents {
  let wave: { number: number; total: number; rule: string; machines: number; healthy: number; failed: number; skipped: number } | undefined;
  let live = false;
  const clear = (): void => {
    if (live) stream.write('\r\x1b[2K');
    live = false;
  };
  const draw = (): void => {
    if (!wave) return;
    const waiting = wave.machines - wave.healthy - wave.failed - wave.skipped;
    clear();
    stream.write(
      `wave ${wave.number}/${wave.total} (${wave.rule}): ${wave.healthy}/${wave.machines} healthy, ${wave.failed} failed, ${wave.skipped} skipped, ${waiting} waiting`,
    );
    live = true;
  };
  const line = (text: string): void => {
    clear();
    stream.write(`${text}\n`);
  };
  return (e) => {
    switch (e.type) {
      case 'wave':
        line(eventLine(e));
        wave = { number: e.wave, total: e.waves, rule: e.rule, machines: e.machines.length, healthy: 0, failed: 0, skipped: 0 };
        return;
      case 'written':
      case 'resumed':
        line(eventLine(e));
        draw();
        return;
      case 'healthy':
        if (wave) wave.healthy += 1;
        draw();
        return;
      case 'skipped':
      case 'failed':
        if (wave) wave[e.type] += 1;
        line(eventLine(e));
        draw();
        return;
      case 'wave-ended':
      case 'stopping':
        draw();
        stream.write('\n');
        live = false;
        line(eventLine(e));
        return;
      case 'rolled-back':
      case 'fragment':
      case 'paused':
      case 'joined':
      case 'pacing':
        line(eventLine(e));
        return;
      case 'held':
        line(eventLine(e));
        draw();
        return;
      case 'done':
        clear();
        return;
    }
  };
}

/** After the apply: each rollout's outcome, and for a stopped one what failed where. */
export function rolloutSummaryLines(outcomes: readonly RolloutOutcome[]): string[] {
  const lines: string[] = [];
  for (const o of outcomes) {
    const f = o.fragment;
    if (o.outcome === 'completed') {
      const tolerated = o.waves.flatMap((w, i) => (w.verdict && w.verdict.failed > 0 ? [`wave ${i + 1} ${waveEndText(w.verdict)}`] : []));
      if (tolerated.length === 0)
        lines.push(`Rollout ${o.name}: completed, ${o.waves.length} wave(s) healthy in ${o.seconds.toFixed(1)}s.`);
      else lines.push(`Rollout ${o.name}: completed, ${o.waves.length} wave(s) in ${o.seconds.toFixed(1)}s; ${tolerated.join('; ')}.`);
      if (f)
        lines.push(
          `  fragment ${f.name}: revision ${f.to_revision} on every machine${f.tags.length > 0 ? `; tag(s) ${f.tags.join(', ')} ${f.tags_moved ? 'moved to it' : 'NOT moved'}` : ''}${f.pins_lifted ? '' : '; some pins were not lifted'}.`,
        );
      continue;
    }
    if (o.outcome === 'paused' && o.held) {
      lines.push(`Rollout ${o.name} paused at wave ${o.stoppedAt ?? '?'} of ${o.waves.length}: ${o.reason ?? ''}.`);
      continue;
    }
    if (o.outcome === 'paused') {
      lines.push(
        `Rollout ${o.name} paused before wave ${o.stoppedAt ?? '?'} of ${o.waves.length}: ${o.reason ?? ''}; the next apply resumes it there.`,
      );
      continue;
    }
    lines.push(`Rollout ${o.name} stopped in wave ${o.stoppedAt ?? '?'} of ${o.waves.length}: ${o.reason ?? ''}.`);
    if (f)
      lines.push(
        `  fragment ${f.name}: revision ${f.to_revision} is saved but reaches no machine: ${f.tags.length > 0 ? `tag(s) ${f.tags.join(', ')} did not move, ` : ''}machines following its latest revision stay pinned to the one they ran.`,
      );
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

/** Where a project keeps its rollout journals when its state backend keeps none. */
export function rolloutJournalDir(cwd: string): string {
  return path.join(cwd, '.fleetform', 'rollouts');
}

/** A project's rollout journals: with its state when the backend keeps them (PostgreSQL), else files of the project. */
export function rolloutJournals(backend: StateBackend, cwd: string): RolloutJournalStore {
  return backend.rolloutJournals?.() ?? fileJournalStore(rolloutJournalDir(cwd));
}
