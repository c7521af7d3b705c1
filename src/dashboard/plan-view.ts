/** The pending plan as the plans page shows it (rendered by the engine's own renderers) and its drift. */
import { hasChanges, summarize, type Plan } from '../engine/plan/model';
import { renderPlanMarkdown } from '../engine/render/markdown';
import { renderPlanText } from '../engine/render/text';
import { showValue } from '../engine/render/values';
import { isMasked } from '../engine/mask';
import type { JsonValue } from '../engine/json';
import type { DriftView, PlanView } from './view';

export function planView(plan: Plan, awaitingApproval = false): PlanView {
  const s = summarize(plan.changes);
  return {
    createdAt: plan.createdAt,
    stacks: plan.stacks.map((st) => st.name),
    text: renderPlanText(plan, { color: false }),
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

/** A drifted value for display: masked values and anything at a secret path read `(sensitive)`. */
function shown(value: JsonValue | undefined, path: string, secrets: readonly string[]): string {
  if (value !== undefined && (isMasked(value) || underSecret(path, secrets))) return '(sensitive)';
  return showValue(value);
}

/** Every value changed outside fleetform, and every object deleted outside it. */
export function driftOf(plan: Plan): DriftView[] {
  const out: DriftView[] = [];
  for (const c of plan.changes) {
    if (c.vanished) out.push({ stack: c.stack, address: c.address, type: c.type, path: '', before: 'exists', after: '(deleted outside fleetform)', vanished: true });
    for (const d of c.drift) out.push({ stack: c.stack, address: c.address, type: c.type, path: d.path, before: shown(d.before, d.path, c.sensitivePaths), after: shown(d.after, d.path, c.sensitivePaths), vanished: false });
  }
  return out;
}
