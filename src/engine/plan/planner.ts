import { ServiceError } from '../../api/client';
import { resolveReferences } from '../desired/references';
import type { DesiredResource, DesiredStack } from '../desired/stack';
import { diffJson } from '../diff';
import { runGraph } from '../graph';
import type { JsonObject } from '../json';
import { desireResource } from '../desire';
import type { Desired, KindContext, KindRegistry, Observation, PlanNote } from '../kind';
import { replaceReasonsOf } from '../kind-declaration';
import { maskPaths, observedSecretPaths } from '../mask';
import type { AdaptiveReadLimit, ReadOutcome } from '../read-concurrency';
import type { State, StateEntry } from '../state/schema';
import type { ResourceChange } from './model';
import { withServiceChoices } from './service-choices';

export interface PlanStackInput {
  readonly stack: DesiredStack;
  readonly state: State;
  readonly kinds: KindRegistry;
  readonly ctx: KindContext;
  /** Read the service (default). Without it, the last applied state stands for what exists. */
  readonly refresh: boolean;
  readonly parallelism: number;
  /** When set, how many reads run at once follows the network (else `parallelism`). */
  readonly readLimit?: AdaptiveReadLimit;
  /** Plan the removal of everything in state. */
  readonly destroy: boolean;
}

/** What reading the service found of one address: `gone` when it is in state but no longer exists. */
interface Observed {
  readonly observation: Observation | undefined;
  readonly gone: boolean;
}

/** Reads the remote object of a state entry (nothing when not refreshing or not in state). */
async function observe(input: PlanStackInput, address: string): Promise<Observed> {
  const entry = input.state.resources[address];
  if (!input.refresh || !entry) return { observation: undefined, gone: false };
  const kind = input.kinds.require(entry.type, address);
  const read = () => kind.observe(input.ctx, entry);
  const observation = input.readLimit ? await input.readLimit.measure(read, readOutcome) : await read();
  return { observation, gone: observation === undefined };
}

function readParallelism(input: PlanStackInput): number | (() => number) {
  const limit = input.readLimit;
  return limit ? () => limit.limit : input.parallelism;
}

/** The service pushing back slows the reads down; other failures say nothing of load. */
function readOutcome(err: unknown): ReadOutcome {
  return err instanceof ServiceError && (err.code === 'RESOURCE_EXHAUSTED' || err.code === 'UNAVAILABLE') ? 'overload' : 'error';
}

/**
 * Diffs what exists against what the stack declares, address by address. Each resource is
 * read right before it is planned, so only the reads in flight hold remote views: a large
 * fleet never has all of them in memory at once.
 */
export async function planStack(input: PlanStackInput): Promise<ResourceChange[]> {
  const { stack, state, kinds } = input;
  const salt = state.lineage;
  for (const r of stack.resources) kinds.require(r.type, r.address);

  const changes = new Map<string, ResourceChange>();
  const desiredResources = input.destroy ? [] : stack.resources;
  const byAddress = new Map(desiredResources.map((r) => [r.address, r]));
  const failures: unknown[] = [];

  await runGraph(
    desiredResources.map((r) => r.address),
    (a) => byAddress.get(a)?.dependsOn ?? [],
    readParallelism(input),
    async (address) => {
      try {
        const resource = byAddress.get(address) as DesiredResource;
        changes.set(address, await planResource(input, resource, await observe(input, address), changes, salt));
      } catch (err) {
        failures.push(err);
        throw err;
      }
    },
  );
  if (failures.length > 0) throw failures[0];

  const removed = Object.keys(state.resources).filter((address) => !byAddress.has(address));
  await runGraph(removed, () => [], readParallelism(input), async (address) => {
    try {
      changes.set(address, planRemoval(input, address, await observe(input, address), salt));
    } catch (err) {
      failures.push(err);
      throw err;
    }
  });
  // A read that failed must stop the plan: taken for "gone", it would plan a create or a forget.
  if (failures.length > 0) throw failures[0];
  return [...changes.values()].sort((a, b) => a.address.localeCompare(b.address));
}

/** The change for an address in state that the stack no longer declares (or every one, when destroying). */
function planRemoval(input: PlanStackInput, address: string, observed: Observed, salt: string): ResourceChange {
  const { stack, state, kinds } = input;
  const entry = state.resources[address] as StateEntry;
  const kind = kinds.require(entry.type, address);
  const { observation, gone } = observed;
  const retain = kind.retainOnDelete(entry);
  const notes: PlanNote[] = [];
  if (gone) notes.push({ level: 'info', message: 'already deleted outside fleetform; it is only removed from state' });
  if (retain && !gone) notes.push({ level: 'info', message: 'retain_on_delete: the remote object is kept, fleetform stops managing it' });
  if (entry.status === 'deleting') notes.push({ level: 'info', message: 'deletion started earlier and is not finished yet' });
  const before = observation ? maskPaths(observation.view, [...entry.sensitive_paths, ...observedSecretPaths(kind, observation.view)], salt) : entry.attributes;
  return {
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
  };
}

async function planResource(
  input: PlanStackInput,
  resource: DesiredResource,
  observed: Observed,
  planned: Map<string, ResourceChange>,
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
  const desired: Desired = await desireResource(kind, ctx, attributes, prior);
  const after = maskPaths(desired.view, desired.sensitivePaths, salt);
  const { observation } = observed;
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
  const vanished = prior !== undefined && observed.gone;
  if (!prior || vanished || prior.status === 'deleting') {
    const notes = [...desired.notes];
    if (vanished) notes.unshift({ level: 'warning', message: 'was deleted outside fleetform; apply creates it again' });
    const shown = withServiceChoices(after, kind.serviceChosen);
    return {
      ...base,
      after: shown,
      action: 'create',
      before: null,
      changes: diffJson(undefined, shown),
      drift: [],
      vanished,
      replaceReasons: [],
      notes,
      problems: desired.problems,
      observedVersion: null,
    };
  }
  // What the service holds is masked by the same rule as what the stack declares: a secret
  // added outside fleetform never shows in clear as drift.
  const observedSecrets = observation ? observedSecretPaths(kind, observation.view, attributes) : [];
  const sensitive = [...new Set([...desired.sensitivePaths, ...prior.sensitive_paths, ...observedSecrets])];
  const observedView = observation ? maskPaths(observation.view, sensitive, salt) : undefined;
  const current = observedView ?? prior.attributes ?? {};
  const drift = prior.attributes && observedView ? diffJson(prior.attributes, observedView) : [];
  const changes = diffJson(current, after);
  const replaceReasons = replaceReasonsOf(kind.declaration, current, after);
  const judgement = kind.judge?.({ current, desired: after, observation, prior, replaceReasons, ...(desired.kindData ? { desiredData: desired.kindData } : {}) }) ?? { problems: [], notes: [] };
  const action = changes.length === 0 ? 'no-op' : replaceReasons.length > 0 ? 'replace' : 'update';
  const noDrift = prior.attributes !== null && drift.length === 0;
  return {
    ...base,
    action,
    // Equal when nothing changes: one object serves both (the state's own when nothing drifted
    // either), so a large plan without changes holds no view beyond what the state holds.
    before: action === 'no-op' ? (noDrift ? (prior.attributes as JsonObject) : after) : current,
    after: action === 'no-op' && noDrift ? (prior.attributes as JsonObject) : after,
    changes,
    drift,
    vanished: false,
    replaceReasons: action === 'replace' ? replaceReasons : [],
    notes: [...desired.notes, ...judgement.notes],
    problems: [...desired.problems, ...judgement.problems],
    observedVersion: observation?.version ?? null,
  };
}
