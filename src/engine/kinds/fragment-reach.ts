/**
 * What the fragment changes of a stack's plan do to the stack's machines. Each machine
 * importing fragments is resolved before the plan (its fragments as the service has them,
 * at the version it imports) and after it (the fragments the plan changes as planned); a
 * machine reaching a changed fragment whose resolved config changes is one the change
 * reaches: its diff, the changed fragments it reaches and the modules it restarts (the
 * machine rule of moduleRestarts, versions as the registry resolves them) go in the plan.
 * The reach note of each changed fragment then names the machines restarting a module
 * that fragment brings, at most NAMES_SHOWN of them per module.
 */
import { diffJson } from '../diff';
import { isObject, stableStringify, type JsonObject } from '../json';
import type { KindContext, PlanNote, StackReview } from '../kind';
import { mapLimited } from '../map-limited';
import type { ResolvedMachineChange, ResourceChange } from '../plan-model';
import type { State } from '../state/schema';
import { fragmentKind, REACH_NOTE } from './fragment';
import { machineKind, runningVersions } from './machine';
import { planFetch } from './machine-fragments';
import { serviceFetch } from '../fragment-fetch';
import { runsAs, type MachineRuns } from './machine-resolved-diff';
import { moduleRestarts } from '../../domain/module-restarts';

/** Machine names a note shows per module before "and N more". */
export const NAMES_SHOWN = 5;

/** Machines resolved at once (their reads are shared and memoized; this bounds the work in flight). */
const RESOLVING_AT_ONCE = 32;

const nameOf = (view: JsonObject | null): string | undefined => (view && typeof view.name === 'string' ? view.name : undefined);

/** The fragments the plan saves a new config of, by id: their addresses. */
function changedFragments(state: State, changes: readonly ResourceChange[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of changes) {
    if (c.type !== fragmentKind.type || c.action !== 'update' || !c.before || !c.after) continue;
    if (stableStringify(c.before.config) === stableStringify(c.after.config)) continue;
    const id = state.resources[c.address]?.ids.id;
    if (id) out.set(id, c.address);
  }
  return out;
}

/** The ids of the fragments a resolution reaches. */
function reached(runs: MachineRuns): Set<string> {
  return new Set((runs.resolution?.imports ?? []).filter((i) => i.revision !== undefined).map((i) => i.id));
}

/** Whether an import of fragment `id` in the resolution brings the module `name`. */
function bringsModule(runs: MachineRuns, id: string, name: string): boolean {
  return (runs.resolution?.imports ?? []).some((i) => i.id === id && i.entries.some((e) => e.section === 'modules' && e.name === name));
}

interface Reached {
  readonly change: ResolvedMachineChange;
  readonly after: MachineRuns;
  /** The config names of the modules it restarts, in the order of `change.restarts`. */
  readonly restartNames: readonly string[];
}

/** One machine's resolved change, when a changed fragment reaches it and what it runs changes. */
async function machineChange(
  ctx: KindContext,
  stack: string,
  change: ResourceChange,
  changed: Map<string, string>,
): Promise<Reached | undefined> {
  const machine = nameOf(change.after) ?? nameOf(change.before) ?? change.address;
  const before = await runsAs(
    machine,
    change.before,
    serviceFetch(ctx.client.appClient, (k, load) => ctx.memo(k, load)),
  );
  if (!before || before === 'unknown' || !before.resolution) return undefined;
  const after = await runsAs(machine, change.after, planFetch(ctx));
  if (!after || after === 'unknown') return undefined;
  const ids = new Set([...reached(before), ...reached(after)].filter((id) => changed.has(id)));
  if (ids.size === 0) return undefined;
  const changes = diffJson(before.config, after.config);
  if (changes.length === 0) return undefined;
  const imports = [...(after.resolution?.imports ?? []), ...before.resolution.imports];
  const fragments = [...ids].map((id) => {
    const i = imports.find((x) => x.id === id);
    return { id, name: i?.name, address: changed.get(id) as string };
  });
  const was = isObject(before.config.modules) ? before.config.modules : {};
  const now = isObject(after.config.modules) ? after.config.modules : {};
  const restarts = moduleRestarts(was, now, await runningVersions(ctx, before.config), await runningVersions(ctx, after.config));
  return {
    change: {
      stack,
      address: change.address,
      machine,
      fragments,
      changes,
      restarts: restarts.map((r) => ({ module: r.moduleId ?? r.name, why: r.why })),
    },
    after,
    restartNames: restarts.map((r) => r.name),
  };
}

/** `a, b, c, d, e and 7 more`. */
export function cappedList(names: readonly string[], shown = NAMES_SHOWN): string {
  if (names.length <= shown) return names.join(', ');
  return `${names.slice(0, shown).join(', ')} and ${(names.length - shown).toLocaleString('en-US')} more`;
}

/** What the note of a changed fragment says of the stack's machines: which restart a module it brings. */
export function restartsText(byModule: ReadonlyMap<string, readonly string[]>, reaching: number): string {
  if (byModule.size === 0) {
    return reaching === 1
      ? 'the machine of this stack whose config it changes restarts no module'
      : `the ${reaching.toLocaleString('en-US')} machines of this stack whose config it changes restart no module`;
  }
  return `restarts ${[...byModule].map(([module, machines]) => `module ${module} on ${cappedList(machines)}`).join(' and ')}`;
}

/** The change's notes with the reach note extended by `text`; without a reach note, a note of its own when modules restart. */
function withReach(change: ResourceChange, text: string, restarts: boolean): ResourceChange {
  const at = change.notes.findIndex((n) => n.path === 'config' && n.message.startsWith(REACH_NOTE));
  const notes: PlanNote[] = [...change.notes];
  if (at >= 0) notes[at] = { ...(notes[at] as PlanNote), message: `${(notes[at] as PlanNote).message}; ${text}` };
  else if (restarts) notes.push({ level: 'warning', path: 'config', message: `this change ${text}` });
  return { ...change, notes };
}

/**
 * The stack's changes with the reach notes of its changed fragments extended, and the
 * resolved change of each machine those changes reach. A plan changing no fragment is
 * returned as it is, without a read.
 */
export async function fragmentReach(
  ctx: KindContext,
  stack: string,
  state: State,
  changes: readonly ResourceChange[],
): Promise<StackReview> {
  const changed = changedFragments(state, changes);
  if (changed.size === 0) return { changes, resolved: [] };
  const machines = changes.filter((c) => c.type === machineKind.type && c.before !== null && c.after !== null);
  const found = (await mapLimited(machines, RESOLVING_AT_ONCE, (c) => machineChange(ctx, stack, c, changed))).filter(
    (x) => x !== undefined,
  );
  const byAddress = new Map<string, ResourceChange>();
  for (const [id, address] of changed) {
    const reaching = found.filter((f) => f.change.fragments.some((x) => x.id === id));
    if (reaching.length === 0) continue;
    const byModule = new Map<string, string[]>();
    for (const f of reaching) {
      f.change.restarts.forEach((r, i) => {
        if (!bringsModule(f.after, id, f.restartNames[i] as string)) return;
        byModule.set(r.module, [...(byModule.get(r.module) ?? []), f.change.machine]);
      });
    }
    const change = byAddress.get(address) ?? (changes.find((c) => c.address === address) as ResourceChange);
    byAddress.set(address, withReach(change, restartsText(byModule, reaching.length), byModule.size > 0));
  }
  return { changes: changes.map((c) => byAddress.get(c.address) ?? c), resolved: found.map((f) => f.change) };
}
