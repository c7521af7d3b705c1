import { resolveReferences } from '../desired/references';
import type { DesiredResource, DesiredStack } from '../desired/stack';
import { diffJson } from '../diff';
import { runGraph } from '../graph';
import type { JsonObject } from '../json';
import type { Desired, KindContext, KindRegistry, Observation, PlanNote } from '../kind';
import { maskPaths } from '../mask';
import type { State, StateEntry } from '../state/schema';
import type { ResourceChange } from './model';

export interface PlanStackInput {
  readonly stack: DesiredStack;
  readonly state: State;
  readonly kinds: KindRegistry;
  readonly ctx: KindContext;
  /** Read the service (default). Without it, the last applied state stands for what exists. */
  readonly refresh: boolean;
  readonly parallelism: number;
  /** Plan the removal of everything in state. */
  readonly destroy: boolean;
}

/** Observes every resource in state, `parallelism` at a time. */
async function observeAll(input: PlanStackInput): Promise<Map<string, Observation | undefined>> {
  const observed = new Map<string, Observation | undefined>();
  const addresses = Object.keys(input.state.resources);
  if (!input.refresh) return observed;
  await runGraph(addresses, () => [], input.parallelism, async (address) => {
    const entry = input.state.resources[address] as StateEntry;
    observed.set(address, await input.kinds.require(entry.type, address).observe(input.ctx, entry));
  });
  return observed;
}

/** Diffs what exists against what the stack declares, address by address. */
export async function planStack(input: PlanStackInput): Promise<ResourceChange[]> {
  const { stack, state, kinds } = input;
  const salt = state.lineage;
  for (const r of stack.resources) kinds.require(r.type, r.address);
  const observations = await observeAll(input);
  const isGone = (address: string): boolean => input.refresh && observations.get(address) === undefined;

  const changes = new Map<string, ResourceChange>();
  const desiredResources = input.destroy ? [] : stack.resources;
  const byAddress = new Map(desiredResources.map((r) => [r.address, r]));
  const failures: unknown[] = [];

  await runGraph(
    desiredResources.map((r) => r.address),
    (a) => byAddress.get(a)?.dependsOn ?? [],
    input.parallelism,
    async (address) => {
      try {
        const resource = byAddress.get(address) as DesiredResource;
        changes.set(address, await planResource(input, resource, observations, changes, isGone, salt));
      } catch (err) {
        failures.push(err);
        throw err;
      }
    },
  );
  if (failures.length > 0) throw failures[0];

  for (const [address, entry] of Object.entries(state.resources)) {
    if (byAddress.has(address)) continue;
    const kind = kinds.require(entry.type, address);
    const observation = observations.get(address);
    const gone = isGone(address);
    const retain = kind.retainOnDelete(entry);
    const notes: PlanNote[] = [];
    if (gone) notes.push({ level: 'info', message: 'already deleted outside fleetform; it is only removed from state' });
    if (retain && !gone) notes.push({ level: 'info', message: 'retain_on_delete: the remote object is kept, fleetform stops managing it' });
    if (entry.status === 'deleting') notes.push({ level: 'info', message: 'deletion started earlier and is not finished yet' });
    const before = observation ? maskPaths(observation.view, entry.sensitive_paths, salt) : entry.attributes;
    changes.set(address, {
      stack: stack.name,
      address,
      type: entry.type,
      action: gone || retain ? 'forget' : 'delete',
      replaceOrder: kind.replaceOrder,
      before,
      after: null,
      changes: before ? diffJson(before, undefined) : [],
      drift: [],
      vanished: gone,
      replaceReasons: [],
      notes,
      problems: [],
      facts: observation?.facts ?? {},
      sensitivePaths: entry.sensitive_paths,
      dependsOn: entry.dependencies,
      observedVersion: observation?.version ?? null,
    });
  }
  return [...changes.values()].sort((a, b) => a.address.localeCompare(b.address));
}

async function planResource(
  input: PlanStackInput,
  resource: DesiredResource,
  observations: Map<string, Observation | undefined>,
  planned: Map<string, ResourceChange>,
  isGone: (address: string) => boolean,
  salt: string,
): Promise<ResourceChange> {
  const { state, kinds, ctx, stack } = input;
  const kind = kinds.require(resource.type, resource.address);
  const prior = state.resources[resource.address];
  const attributes = resolveReferences(resource.attributes, (ref) => {
    const upstream = planned.get(ref.address);
    if (upstream && (upstream.action === 'create' || upstream.action === 'replace')) return undefined;
    return state.resources[ref.address]?.outputs[ref.output];
  }) as JsonObject;
  const desired: Desired = await kind.desire(ctx, attributes, prior);
  const after = maskPaths(desired.view, desired.sensitivePaths, salt);
  const observation = observations.get(resource.address);
  const base = {
    stack: stack.name,
    address: resource.address,
    type: resource.type,
    replaceOrder: kind.replaceOrder,
    after,
    sensitivePaths: desired.sensitivePaths,
    dependsOn: resource.dependsOn,
    facts: observation?.facts ?? {},
  };
  const vanished = prior !== undefined && isGone(resource.address);
  if (!prior || vanished || prior.status === 'deleting') {
    const notes = [...desired.notes];
    if (vanished) notes.unshift({ level: 'warning', message: 'was deleted outside fleetform; apply creates it again' });
    return {
      ...base,
      action: 'create',
      before: null,
      changes: diffJson(undefined, after),
      drift: [],
      vanished,
      replaceReasons: [],
      notes,
      problems: desired.problems,
      observedVersion: null,
    };
  }
  const sensitive = [...new Set([...desired.sensitivePaths, ...prior.sensitive_paths])];
  const observedView = observation ? maskPaths(observation.view, sensitive, salt) : undefined;
  const current = observedView ?? prior.attributes ?? {};
  const drift = prior.attributes && observedView ? diffJson(prior.attributes, observedView) : [];
  const changes = diffJson(current, after);
  const judgement = kind.judge(current, after, observation, prior);
  const action = changes.length === 0 ? 'no-op' : judgement.replaceReasons.length > 0 ? 'replace' : 'update';
  return {
    ...base,
    action,
    // Equal when nothing changes: one object serves both, so a large no-change plan holds each view once.
    before: action === 'no-op' ? after : current,
    changes,
    drift,
    vanished: false,
    replaceReasons: action === 'replace' ? judgement.replaceReasons : [],
    notes: [...desired.notes, ...judgement.notes],
    problems: [...desired.problems, ...judgement.problems],
    observedVersion: observation?.version ?? null,
  };
}
