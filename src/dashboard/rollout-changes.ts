/** The events a dashboard reports for a rollout it reads again: what moved since the last reading. */
import type { SourceEvent } from './source';
import type { RolloutView } from './view';

/**
 * Events for what moved in a rollout since the last reading: a new wave, a machine's new
 * result, each new measurement of an analysis, the end; each at the time its journal says
 * (its start, the measurement's, or its last update).
 */
export function rolloutChanges(before: RolloutView | undefined, after: RolloutView): SourceEvent[] {
  const out: SourceEvent[] = [];
  const head = `rollout ${after.name} (stack ${after.stack})`;
  const at = after.updatedAt;
  if (!before || before.startedAt !== after.startedAt)
    out.push({
      kind: 'rollout',
      level: 'info',
      stack: after.stack,
      at: after.startedAt,
      message: `${head}: started, ${after.waves.length} wave(s)`,
    });
  else if (before.wave !== after.wave)
    out.push({ kind: 'rollout', level: 'info', stack: after.stack, at, message: `${head}: wave ${after.wave} of ${after.waves.length}` });
  const old = new Map((before?.startedAt === after.startedAt ? before.waves : []).flatMap((w) => w.machines).map((m) => [m.address, m]));
  for (const w of after.waves) {
    for (const m of w.machines) {
      const was = old.get(m.address);
      if (was?.state === m.state && was.failed === m.failed) continue;
      if (m.state === 'waiting' || m.state === 'not reached' || m.state === 'gone') continue;
      const level = m.failed ? 'error' : m.state === 'rolled back' ? 'warn' : 'info';
      out.push({
        kind: 'rollout',
        level,
        stack: after.stack,
        at,
        message: `${head}: wave ${w.number}: ${m.name} ${m.failed && m.state !== 'failed' ? `failed, ${m.state}` : m.state}${m.log ? `; log: ${m.log}` : ''}`,
      });
    }
  }
  const seen = new Set(
    (before?.startedAt === after.startedAt ? before.waves : []).flatMap((w) =>
      (w.analysis ?? []).map((m) => `${w.number}\0${m.analysis}\0${m.at}`),
    ),
  );
  for (const w of after.waves)
    for (const m of w.analysis ?? []) {
      if (seen.has(`${w.number}\0${m.analysis}\0${m.at}`)) continue;
      out.push({
        kind: 'rollout',
        level: m.result === 'fail' ? 'error' : m.result === 'inconclusive' ? 'warn' : 'info',
        stack: after.stack,
        at: m.at,
        message: `${head}: wave ${w.number}: analysis ${m.analysis} ${m.result.toUpperCase()} ${m.value}${m.baseline === undefined ? '' : ` (baseline ${m.baseline})`}: ${m.why}`,
      });
    }
  if (before?.status !== after.status && after.status !== 'running') {
    out.push({
      kind: 'rollout',
      level: after.status === 'completed' ? 'info' : 'warn',
      stack: after.stack,
      at,
      message: `${head}: ${after.status}${after.reason ? `: ${after.reason}` : ''}`,
    });
  }
  return out;
}
