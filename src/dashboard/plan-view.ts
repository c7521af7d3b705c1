/** The pending plan as the plans page shows it (rendered by the engine's own renderers) and its drift. */
import { hasChanges, isMasked, maskPaths, type Plan, renderPlanMarkdown, renderPlanText, showValue, summarize } from '../engine';
import { randomBytes } from 'node:crypto';
import type { JsonValue } from '../domain/json-value';
import type { DriftView, PlanLine, PlanTone, PlanView } from './view';

/** The terminal's colour codes (SGR) as line tones; the first colour a line has is its tone. */
const TONES: Readonly<Record<string, PlanTone>> = { '32': 'add', '33': 'change', '31': 'remove', '1': 'heading', '2': 'note' };
// eslint-disable-next-line no-control-regex
const ESCAPE = /\u001b\[([0-9;]*)m/g;

/** A plan's text as the terminal shows it (with its colour codes), as plain lines each with its colour. */
export function planLines(colored: string): PlanLine[] {
  return colored.split('\n').map((line) => {
    let tone: PlanTone = 'plain';
    for (const [, code] of line.matchAll(ESCAPE)) {
      const found = TONES[code ?? ''];
      if (found) {
        tone = found;
        break;
      }
    }
    // Any other escape sequence left is dropped with its introducer: the text is plain.
    return { tone, text: line.replace(ESCAPE, '').split('\u001b').join('') };
  });
}

export function planView(plan: Plan, awaitingApproval = false): PlanView {
  const s = summarize(plan.changes);
  return {
    createdAt: plan.createdAt,
    stacks: plan.stacks.map((st) => st.name),
    text: renderPlanText(plan, { color: false }),
    lines: planLines(renderPlanText(plan, { color: true })),
    markdown: renderPlanMarkdown(plan),
    summary: { add: s.add, change: s.change, destroy: s.destroy, drifted: s.drifted, problems: s.problems },
    hasChanges: hasChanges(plan),
    awaitingApproval,
  };
}

/** Whether a path is, or is under, one of the secret paths. */
function underSecret(path: string, secrets: readonly string[]): boolean {
  return secrets.some((s) => path === s || path.startsWith(`${s}.`) || path.startsWith(`${s}[`));
}

/** The secret paths inside the value at `path`, relative to it (a drift of a whole object holding a secret). */
function secretsInside(path: string, secrets: readonly string[]): string[] {
  return secrets.flatMap((s) =>
    path === '' ? [s] : s.startsWith(`${path}.`) ? [s.slice(path.length + 1)] : s.startsWith(`${path}[`) ? [s.slice(path.length)] : [],
  );
}

/** A drifted value for display: masked values, anything at a secret path and every secret inside it read `(sensitive)`. */
function shown(value: JsonValue | undefined, path: string, secrets: readonly string[], key: Buffer): string {
  if (value !== undefined && (isMasked(value) || underSecret(path, secrets))) return '(sensitive)';
  const inside = secretsInside(path, secrets);
  return showValue(value === undefined || inside.length === 0 ? value : maskPaths(value, inside, 'dashboard', key));
}

/** Every value changed outside fleetform, and every object deleted outside it. */
export function driftOf(plan: Plan): DriftView[] {
  const out: DriftView[] = [];
  const key = randomBytes(32);
  for (const c of plan.changes) {
    if (c.vanished)
      out.push({
        stack: c.stack,
        address: c.address,
        type: c.type,
        path: '',
        before: 'exists',
        after: '(deleted outside fleetform)',
        vanished: true,
      });
    for (const d of c.drift)
      out.push({
        stack: c.stack,
        address: c.address,
        type: c.type,
        path: d.path,
        before: shown(d.before, d.path, c.sensitivePaths, key),
        after: shown(d.after, d.path, c.sensitivePaths, key),
        vanished: false,
      });
  }
  return out;
}
