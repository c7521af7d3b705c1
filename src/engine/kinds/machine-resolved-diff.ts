/**
 * One machine's change as it will run it: its config before and after the plan, each
 * resolved with the fragments it imports (after: those the plan changes as planned), as a
 * key-by-key diff of what the machine runs (`fleetform plan --machine NAME`).
 */
import type { ServiceClient } from '../../api/client';
import { diffJson, type AttributeChange } from '../diff';
import { isObject, type JsonObject } from '../json';
import type { Plan, ResourceChange } from '../plan-model';
import { showValue } from '../shown-value';
import { fragmentConfigDocument } from './fragment';
import { configDocument, configView } from './machine-config-view';
import type { MachineResolution } from '../../domain/fragments';
import { FRAGMENT_TYPE } from '../../domain/resource-attributes';
import { declaredFetch, type DeclaredFragment } from './machine-fragments';
import { importsFragments, resolveFetching, serviceFetch, type FragmentFetch } from '../fragment-fetch';
import { machineKind } from './machine';

export interface MachineRunDiff {
  readonly address: string;
  readonly machine: string;
  /** Key by key, paths as the machine runs them (`components.front-board.attributes.pin`). */
  readonly changes: readonly AttributeChange[];
  /** Why a side could not be resolved (its config known only after apply). */
  readonly unknown?: string;
}

const nameOf = (view: JsonObject | null): string | undefined => (view && typeof view.name === 'string' ? view.name : undefined);

/** Why a side of a machine's change cannot be resolved. */
export const CONFIG_KNOWN_AFTER_CREATE = 'its config names an object this apply creates: it is known once that exists';

/** What a machine runs: its config view resolved with its fragments, and the resolution when it imports any. */
export interface MachineRuns {
  readonly config: JsonObject;
  readonly resolution: MachineResolution | undefined;
}

/**
 * What one side of a machine's change (its `before` or `after` view) runs, its fragments
 * read through `fetch`; undefined when the side is absent, 'unknown' when its config is
 * known only at apply.
 */
export async function runsAs(machine: string, view: JsonObject | null, fetch: FragmentFetch): Promise<MachineRuns | undefined | 'unknown'> {
  if (!view) return undefined;
  if (!isObject(view.config)) return 'unknown';
  const document = configDocument(view.config);
  if (!importsFragments(document)) return { config: configView(document), resolution: undefined };
  const resolution = await resolveFetching(machine, document, fetch);
  return { config: configView(resolution.config), resolution };
}

/** The machines a plan holds, by name. */
export function plannedMachineNames(plan: Plan): string[] {
  return plan.changes.filter((c) => c.type === machineKind.type).map((c) => nameOf(c.after) ?? nameOf(c.before) ?? c.address);
}

/** The fragments the plan changes, as planned, by the id the service gave them (found by name in their organization). */
async function plannedFragments(plan: Plan, client: ServiceClient): Promise<Map<string, DeclaredFragment>> {
  const out = new Map<string, DeclaredFragment>();
  const changed = plan.changes.filter((c) => c.type === FRAGMENT_TYPE && c.before && c.after && isObject(c.after.config));
  for (const c of changed) {
    const after = c.after as JsonObject;
    const organization = typeof after.organization_id === 'string' ? after.organization_id : '';
    const listed = await client.appClient.listFragments(organization);
    const found = listed.find((f) => f.name === nameOf(c.before) && f.organizationId === organization);
    if (found) out.set(found.id, { name: String(after.name), config: fragmentConfigDocument(after.config as JsonObject) });
  }
  return out;
}

/** The diff of what the named machine runs before and after the plan; undefined when the plan has no such machine. */
export async function machineRunDiff(plan: Plan, machine: string, client: ServiceClient): Promise<MachineRunDiff | undefined> {
  const change: ResourceChange | undefined = plan.changes.find(
    (c) => c.type === machineKind.type && (nameOf(c.after) ?? nameOf(c.before)) === machine,
  );
  if (!change) return undefined;
  const read = new Map<string, Promise<unknown>>();
  const fromService = serviceFetch(client.appClient, <T>(key: string, load: () => Promise<T>): Promise<T> => {
    if (!read.has(key)) read.set(key, load());
    return read.get(key) as Promise<T>;
  });
  const planned = await plannedFragments(plan, client);
  const before = await runsAs(machine, change.before, fromService);
  const after = await runsAs(
    machine,
    change.after,
    declaredFetch(async (id) => planned.get(id), fromService),
  );
  if (before === 'unknown' || after === 'unknown') {
    return { address: change.address, machine, changes: [], unknown: CONFIG_KNOWN_AFTER_CREATE };
  }
  return { address: change.address, machine, changes: diffJson(before?.config, after?.config) };
}

/** The diff as text: one line per key the machine runs differently. */
export function renderMachineRunDiff(diff: MachineRunDiff): string {
  const lines = [`Machine ${diff.machine} (${diff.address}) as it will run, its config resolved with its fragments:`];
  if (diff.unknown) lines.push(`  ${diff.unknown}`);
  else if (diff.changes.length === 0) lines.push('  no change to what it runs');
  for (const c of diff.changes) {
    if (c.kind === 'add') lines.push(`  + ${c.path} = ${showValue(c.after, '      ')}`);
    else if (c.kind === 'remove') lines.push(`  - ${c.path} = ${showValue(c.before, '      ')}`);
    else lines.push(`  ~ ${c.path}: ${showValue(c.before, '      ')} -> ${showValue(c.after, '      ')}`);
  }
  return `${lines.join('\n')}\n`;
}
