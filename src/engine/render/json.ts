import type { JsonValue } from '../json';
import type { AttributeChange } from '../diff';
import { summarize, type Action, type Plan, type ResolvedMachineChange, type WindowHold } from '../plan-model';
import { heldChanges, holdOfChange, holdsByAddress } from './holds';
import { redact } from '../shown-value';

/**
 * The machine-readable plan (`fleetform plan --json`), format_version 1.0. Stable fields:
 * format_version, created_at, destroy, stacks[], resource_changes[] (address, stack, type,
 * change {actions, before, after, replace_paths}, attribute_changes[], drift[], deleted_outside,
 * notes[], problems[], facts), summary {add, change, destroy, forget, drifted, problems},
 * resolved_machine_changes[] (when a fragment change reaches machines of the plan: stack,
 * address, machine, fragments[] {id, name, address}, changes[] {path, kind, before, after}
 * of the config the machine runs, restarts[] {module, why}); targets[] (the addresses a
 * `--target` plan was limited to; absent for a plan of everything); when the plan was checked
 * against windows: window_holds {checked_at, held, holds[]}, summary.held and each held
 * change's window_hold {stack, address, scope, location, reason, until, depends_on, rollout {name, wave, machine}}.
 * Secrets appear as "(sensitive)".
 */
export const PLAN_JSON_FORMAT_VERSION = '1.0';

function actions(action: Action, replaceOrder: 'create-first' | 'delete-first'): string[] {
  if (action === 'replace') return replaceOrder === 'create-first' ? ['create', 'delete'] : ['delete', 'create'];
  if (action === 'adopt' || action === 'move') return ['no-op'];
  return [action];
}

const changeJson = (a: AttributeChange) => ({
  path: a.path,
  kind: a.kind,
  before: redact(a.before) ?? null,
  after: redact(a.after) ?? null,
});

function resolvedMachineJson(m: ResolvedMachineChange) {
  return {
    stack: m.stack,
    address: m.address,
    machine: m.machine,
    fragments: m.fragments.map((f) => ({ id: f.id, name: f.name ?? null, address: f.address })),
    changes: m.changes.map(changeJson),
    restarts: m.restarts.map((r) => ({ module: r.module, why: r.why })),
  };
}

function holdJson(h: WindowHold) {
  return {
    stack: h.stack,
    address: h.address,
    scope: h.scope,
    location: h.location ?? null,
    reason: h.reason,
    until: h.until ?? null,
    depends_on: h.dependsOn ?? null,
    rollout: h.rollout ?? null,
  };
}

export function renderPlanJson(plan: Plan): string {
  const holds = holdsByAddress(plan);
  const doc = {
    format_version: PLAN_JSON_FORMAT_VERSION,
    created_at: plan.createdAt,
    destroy: plan.destroy,
    ...(plan.targets ? { targets: plan.targets } : {}),
    stacks: plan.stacks.map((s) => ({
      name: s.name,
      lineage: s.lineage,
      serial: s.serial,
      organization_id: s.organizationId,
      location_id: s.locationId,
    })),
    resource_changes: plan.changes.map((c) => ({
      address: c.address,
      stack: c.stack,
      type: c.type,
      change: {
        actions: actions(c.action, c.replaceOrder),
        before: redact(c.before ?? undefined) ?? null,
        after: redact(c.after ?? undefined) ?? null,
        replace_paths: c.replaceReasons,
      },
      attribute_changes: c.changes.map(changeJson),
      drift: c.drift.map(changeJson),
      deleted_outside: c.vanished,
      ...(c.movedFrom ? { previous_address: c.movedFrom } : {}),
      ...(c.adopted ? { adopted: true } : {}),
      ...(c.deposed ? { deposed: true } : {}),
      notes: c.notes.map((n) => (n.value === undefined ? n : { ...n, value: redact(n.value) ?? null })),
      problems: c.problems,
      facts: c.facts,
      ...(plan.windows ? { window_hold: ((h) => (h ? holdJson(h) : null))(holdOfChange(holds, c)) } : {}),
    })),
    summary: { ...summarize(plan.changes), ...(plan.windows ? { held: heldChanges(plan) } : {}) },
    ...(plan.rollouts ? { rollouts: plan.rollouts } : {}),
    ...(plan.resolvedMachines ? { resolved_machine_changes: plan.resolvedMachines.map(resolvedMachineJson) } : {}),
    ...(plan.windows
      ? { window_holds: { checked_at: plan.windows.checkedAt, held: heldChanges(plan), holds: plan.windows.holds.map(holdJson) } }
      : {}),
  } satisfies Record<string, unknown>;
  return `${JSON.stringify(doc as unknown as JsonValue, null, 2)}\n`;
}
