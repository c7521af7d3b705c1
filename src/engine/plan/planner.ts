import { ServiceError } from '../../api/client';
import { FleetformError, THIS_ADDRESS, withAddress } from '../../domain/errors';
import { resolveReferences } from '../desired/references';
import type { DesiredResource, DesiredStack } from '../desired/stack';
import { diffJson } from '../diff';
import { runGraph } from '../graph';
import { isObject, isUnknown, type JsonObject } from '../json';
import { desireResource } from '../desire';
import type { Applied, Desired, KindContext, KindRegistry, Observation, PlanNote, ResourceKind } from '../kind';
import { maskPaths, viewSecretPaths } from '../mask';
import type { AdaptiveReadLimit, ReadOutcome } from '../read-concurrency';
import type { State, StateEntry } from '../state/schema';
import { isDeposedKey, resourceChange, type ResourceChange } from '../plan-model';
import { firedTriggers, guardPreventDestroy, replaceOrderOf, unknownIgnoredAttributes } from './lifecycle-rules';
import { planResourceChange } from './resource-core';
import { findKeptObject, takenBackEntry } from './take-back';

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
  /**
   * Plan these addresses only (declared or in state): nothing else is read or planned, a
   * reference to another resolves from its state outputs, and only these may be removed.
   */
  readonly targets?: ReadonlySet<string>;
}

/** Whether `address` is planned: every address when the plan is not targeted. */
function targeted(input: PlanStackInput, address: string): boolean {
  return input.targets === undefined || input.targets.has(address);
}

/** What reading the service found of one address: `gone` when it is in state but no longer exists. */
interface Observed {
  readonly observation: Observation | undefined;
  readonly gone: boolean;
}

/**
 * What state holds for each address once interrupted creates are settled and moves are
 * followed: an intent whose object exists stands as that object (`adopted`), one whose
 * create made nothing stands as nothing; a moved entry stands at its new address.
 */
interface Known {
  readonly entries: Map<string, StateEntry>;
  readonly adopted: Map<string, Applied>;
  /** New address -> the state address it is managed at now. */
  readonly movedFrom: Map<string, string>;
  /** Intents whose create made nothing: dropped from state by apply. */
  readonly emptyIntents: Set<string>;
}

/** Settles interrupted creates (one lookup by name each) and follows the stack's moves. */
async function settle(input: PlanStackInput): Promise<Known> {
  const { state, kinds, ctx } = input;
  const entries = new Map(Object.entries(state.resources));
  const adopted = new Map<string, Applied>();
  const movedFrom = new Map<string, string>();
  const emptyIntents = new Set<string>();
  const managedIds = new Set<string>();
  for (const e of entries.values()) for (const id of Object.values(e.ids)) managedIds.add(id);
  for (const [address, entry] of entries) {
    if (entry.status !== 'creating' || !targeted(input, address)) continue;
    const kind = kinds.require(entry.type, address);
    const intent = entry.private.intent;
    const found = isObject(intent) && input.refresh ? await kind.findCreated(ctx, intent, managedIds) : undefined;
    if (found) {
      adopted.set(address, found);
      for (const id of Object.values(found.ids)) managedIds.add(id);
      entries.set(address, { ...entry, ids: { ...found.ids }, outputs: { ...found.outputs }, status: 'ok', attributes: null });
    } else {
      emptyIntents.add(address);
      entries.delete(address);
    }
  }
  await retakeRetained(input, entries, adopted, managedIds);
  const declared = new Set(input.destroy ? [] : input.stack.resources.map((r) => r.address));
  for (const move of input.stack.moves ?? []) {
    const entry = entries.get(move.from);
    if (!entry || entries.has(move.to) || !declared.has(move.to) || declared.has(move.from)) continue;
    entries.delete(move.from);
    entries.set(move.to, entry);
    movedFrom.set(move.to, move.from);
    const adoptedIds = adopted.get(move.from);
    if (adoptedIds) {
      adopted.delete(move.from);
      adopted.set(move.to, adoptedIds);
    }
  }
  return { entries, adopted, movedFrom, emptyIntents };
}

/** A declaration with no state entry whose object an earlier destroy kept stands as that object, taken back into state. */
async function retakeRetained(
  input: PlanStackInput,
  entries: Map<string, StateEntry>,
  adopted: Map<string, Applied>,
  managedIds: Set<string>,
): Promise<void> {
  if (input.destroy || !input.refresh) return;
  for (const resource of input.stack.resources) {
    if (entries.has(resource.address) || !targeted(input, resource.address)) continue;
    const kind = input.kinds.require(resource.type, resource.address);
    const found = await findKeptObject(kind, input.ctx, resource.attributes, managedIds);
    if (!found) continue;
    adopted.set(resource.address, found);
    for (const id of Object.values(found.ids)) managedIds.add(id);
    entries.set(resource.address, takenBackEntry(resource.type, found, resource.dependsOn));
  }
}

/**
 * One address as every planning step sees it, resolved once: its kind, what state holds
 * for it (moves and interrupted creates settled) and what reading the service found.
 */
interface AddressRecord {
  readonly address: string;
  readonly kind: ResourceKind;
  readonly prior: StateEntry | undefined;
  readonly observed: Observed;
  /** An object an interrupted create made, found by name. */
  readonly adopted: Applied | undefined;
  /** The state address it is managed at until apply moves it here. */
  readonly movedFrom: string | undefined;
}

/** Resolves an address (of `type`, else of its state entry's), reading its remote object (nothing when not refreshing or not in state). */
async function resolveAddress(input: PlanStackInput, known: Known, address: string, type?: string): Promise<AddressRecord> {
  const prior = known.entries.get(address);
  const kind = input.kinds.require(type ?? (prior as StateEntry).type, address);
  const record = { address, kind, prior, adopted: known.adopted.get(address), movedFrom: known.movedFrom.get(address) };
  if (!input.refresh || !prior) return { ...record, observed: { observation: undefined, gone: false } };
  const read = () => kind.observe(input.ctx, prior);
  const observation = input.readLimit ? await input.readLimit.measure(read, readOutcome) : await read();
  return { ...record, observed: { observation, gone: observation === undefined } };
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
export async function planStack(given: PlanStackInput): Promise<ResourceChange[]> {
  const { stack, state, kinds } = given;
  const salt = state.lineage;
  for (const r of stack.resources) kinds.require(r.type, r.address);

  const known = await settle(given);
  const input = withMovedTargets(given, known);
  const changes = new Map<string, ResourceChange>();
  const declaredResources = input.destroy ? [] : stack.resources;
  const byAddress = new Map(declaredResources.map((r) => [r.address, r]));
  const desiredResources = input.targets ? declaredResources.filter((r) => targeted(input, r.address)) : declaredResources;
  const failures: unknown[] = [];
  const standIns: StandIns = new Map();
  const kindsAt = new Map<string, ResourceKind>();
  const resolve = async (address: string, type?: string): Promise<AddressRecord> => {
    const record = await resolveAddress(input, known, address, type);
    kindsAt.set(address, record.kind);
    return record;
  };

  await runGraph(
    desiredResources.map((r) => r.address),
    (a) => byAddress.get(a)?.dependsOn ?? [],
    readParallelism(input),
    async (address) => {
      try {
        const resource = byAddress.get(address) as DesiredResource;
        changes.set(
          address,
          await planDeclaredResource(input, known, resource, await resolve(address, resource.type), changes, salt, standIns),
        );
      } catch (err) {
        failures.push(err);
        throw err;
      }
    },
  );
  if (failures.length > 0) throw failures[0];

  const removed = [...known.entries.keys()].filter((address) => !byAddress.has(address) && targeted(input, address));
  await runGraph(
    removed,
    () => [],
    readParallelism(input),
    async (address) => {
      try {
        changes.set(address, planRemoval(input, await resolve(address), salt));
      } catch (err) {
        failures.push(err);
        throw err;
      }
    },
  );
  // A read that failed must stop the plan: taken for "gone", it would plan a create or a forget.
  if (failures.length > 0) throw failures[0];
  for (const address of known.emptyIntents) {
    if (!changes.has(address)) changes.set(address, emptyIntentChange(input, address));
  }
  flagRenames(input, changes, kindsAt);
  flagSameIdentity(changes, kindsAt);
  guardPreventDestroy(stack, changes);
  return [...changes.values()].sort((a, b) => a.address.localeCompare(b.address));
}

/** A targeted object the stack moves is planned at its new address, which it is targeted at too. */
function withMovedTargets(input: PlanStackInput, known: Known): PlanStackInput {
  if (!input.targets) return input;
  const targets = new Set(input.targets);
  for (const [to, from] of known.movedFrom) if (targets.has(from)) targets.add(to);
  return targets.size === input.targets.size ? input : { ...input, targets };
}

/** An intent whose create made nothing, no longer declared: apply drops it from state. */
function emptyIntentChange(input: PlanStackInput, address: string): ResourceChange {
  const entry = input.state.resources[address] as StateEntry;
  return resourceChange({
    stack: input.stack.name,
    address,
    type: entry.type,
    action: 'forget',
    replaceOrder: input.kinds.require(entry.type, address).replaceOrder,
    notes: [{ level: 'info', message: 'an interrupted create made nothing on the service; only its record is removed' }],
  });
}

/** The kind each planned address's record resolved (its observation is not kept: only reads in flight hold one). */
type KindsAt = ReadonlyMap<string, ResourceKind>;

/** The kind an address's record resolved; every change a check looks at was planned from one. */
function kindAt(kindsAt: KindsAt, address: string): ResourceKind {
  const kind = kindsAt.get(address);
  if (!kind) {
    throw new FleetformError(`${address} was planned without resolving its kind`, {
      hint: 'this is a fault of the planner: plan each address through its resolved record',
    });
  }
  return kind;
}

/**
 * Destroying one object and creating another of the same name on the service is a rename
 * of the construct: the create would clash and the delete lose the object. Each such pair
 * stops the plan, suggesting the move, before apply makes any call.
 */
function flagRenames(input: PlanStackInput, changes: Map<string, ResourceChange>, kindsAt: KindsAt): void {
  const removals = new Map<string, string>();
  for (const c of changes.values()) {
    if (c.action !== 'delete' || c.deposed) continue;
    const entry = input.state.resources[c.address];
    const id = entry?.attributes ? kindAt(kindsAt, c.address).identity(entry.attributes) : undefined;
    if (id) removals.set(`${c.type}\u0000${JSON.stringify(id.key)}`, c.address);
  }
  if (removals.size === 0) return;
  for (const [address, c] of changes) {
    if (c.action !== 'create' || !c.after) continue;
    const id = kindAt(kindsAt, address).identity(c.after);
    const from = id ? removals.get(`${c.type}\u0000${JSON.stringify(id.key)}`) : undefined;
    if (!id || !from) continue;
    changes.set(address, {
      ...c,
      problems: [
        ...c.problems,
        {
          path: '',
          message: `would destroy ${from} and create ${address}, both ${id.label} on the service: the create would clash with the object being destroyed`,
          hint: `if it is the same object, move it: \`fleetform state mv ${from} ${address}\`, or in code \`resource.moveFromId("${from}")\``,
        },
      ],
    });
  }
}

/**
 * Two declared resources that would be the same object on the service (e.g. instances of
 * one counted machine with one name): the second create would clash, so the plan stops.
 */
function flagSameIdentity(changes: Map<string, ResourceChange>, kindsAt: KindsAt): void {
  const byIdentity = new Map<string, string[]>();
  for (const c of changes.values()) {
    if (c.after === null || c.deposed) continue;
    const id = kindAt(kindsAt, c.address).identity(c.after);
    if (!id || Object.values(id.key).some((v) => isUnknown(v))) continue;
    const key = `${c.type}\u0000${JSON.stringify(id.key)}`;
    byIdentity.set(key, [...(byIdentity.get(key) ?? []), c.address]);
  }
  for (const addresses of byIdentity.values()) {
    if (addresses.length < 2) continue;
    for (const address of addresses) {
      const c = changes.get(address) as ResourceChange;
      const label = kindAt(kindsAt, address).identity(c.after as JsonObject)?.label ?? address;
      const others = addresses.filter((a) => a !== address).join(', ');
      changes.set(address, {
        ...c,
        problems: [
          ...c.problems,
          {
            path: '',
            message: `${address} and ${others} would both be ${label} on the service`,
            hint: 'give each its own name (with count, use ${count.index} in the name; with for_each, ${each.key})',
          },
        ],
      });
    }
  }
}

/** The change for an address in state that the stack no longer declares (or every one, when destroying). */
function planRemoval(input: PlanStackInput, record: AddressRecord, salt: string): ResourceChange {
  const { stack } = input;
  const { address, kind, adopted } = record;
  const entry = record.prior as StateEntry;
  const deposed = isDeposedKey(address);
  const { observation, gone } = record.observed;
  const retain = kind.retainOnDelete(entry);
  const notes: PlanNote[] = [];
  if (gone) notes.push({ level: 'info', message: 'already deleted outside fleetform; it is only removed from state' });
  if (retain && !gone) notes.push({ level: 'info', message: 'retain_on_delete: the remote object is kept, fleetform stops managing it' });
  if (entry.status === 'deleting') notes.push({ level: 'info', message: 'deletion started earlier and is not finished yet' });
  if (deposed) notes.push({ level: 'info', message: 'replaced earlier; its delete did not succeed and is retried' });
  if (adopted) notes.push({ level: 'info', message: 'adopted: an interrupted create had made it; it is no longer declared' });
  const before = observation
    ? maskPaths(observation.view, viewSecretPaths(kind, observation.view, entry.sensitive_paths), salt)
    : entry.attributes;
  return resourceChange({
    stack: stack.name,
    address,
    type: entry.type,
    action: gone || retain ? 'forget' : 'delete',
    replaceOrder: kind.replaceOrder,
    before,
    changes: before ? diffJson(before, undefined) : [],
    vanished: gone,
    notes,
    facts: observation?.facts ?? {},
    sensitivePaths: entry.sensitive_paths,
    dependsOn: entry.dependencies,
    observedVersion: observation?.version ?? null,
    ...(adopted ? { adopted } : {}),
    ...(deposed ? { deposed } : {}),
  });
}

/** A hint naming THIS_ADDRESS names the address itself: it runs as printed. */
function withAddressInHints(desired: Desired, address: string): Desired {
  if (!desired.problems.some((p) => p.hint?.includes(THIS_ADDRESS))) return desired;
  const problems = desired.problems.map((p) => (p.hint ? { ...p, hint: withAddress(p.hint, address) } : p));
  return { ...desired, problems };
}

/** Outputs standing in, at plan, for those of objects the plan creates, by address (see ResourceKind.standIn). */
type StandIns = Map<string, Readonly<Record<string, string>>>;

async function planDeclaredResource(
  input: PlanStackInput,
  known: Known,
  resource: DesiredResource,
  record: AddressRecord,
  planned: Map<string, ResourceChange>,
  salt: string,
  standIns: StandIns,
): Promise<ResourceChange> {
  const { kinds, ctx, stack } = input;
  const { address, kind, prior, adopted, movedFrom, observed } = record;
  const attributes = resolveReferences(
    resource.attributes,
    (ref) => {
      const upstream = planned.get(ref.address);
      if (upstream && (upstream.action === 'create' || upstream.action === 'replace')) return undefined;
      // An output the service renews at every update (a revision) is known only after it.
      if (upstream?.action === 'update' && kinds.get(upstream.type)?.declaration.attributes[ref.output]?.changesOnUpdate) return undefined;
      return known.entries.get(ref.address)?.outputs[ref.output];
    },
    (ref) => standIns.get(ref.address)?.[ref.output],
  ) as JsonObject;
  const read: Desired = withAddressInHints(await desireResource(kind, ctx, attributes, prior), address);
  const misnamed = unknownIgnoredAttributes(resource.lifecycle, Object.keys(kind.declaration.attributes));
  const desired: Desired = misnamed.length > 0 ? { ...read, problems: [...read.problems, ...misnamed] } : read;
  const { observation } = observed;
  const vanished = prior !== undefined && observed.gone;
  const existing = prior && !vanished && prior.status !== 'deleting' ? prior : undefined;
  const plan = planResourceChange({ kind, desired, attributes, existing, observation, lifecycle: resource.lifecycle, salt });
  if (kind.standIn && (plan.action === 'create' || plan.action === 'replace' || !existing))
    standIns.set(address, await kind.standIn(ctx, desired.view));
  const base = {
    stack: stack.name,
    address,
    type: resource.type,
    replaceOrder: replaceOrderOf(resource.lifecycle, kind.replaceOrder),
    after: plan.after,
    sensitivePaths: desired.sensitivePaths,
    dependsOn: resource.dependsOn,
    facts: observation?.facts ?? {},
  };
  if (plan.action === 'create' || !existing) {
    const notes = [...desired.notes];
    if (vanished) notes.unshift({ level: 'warning', message: 'was deleted outside fleetform; apply creates it again' });
    return resourceChange({ ...base, action: 'create', changes: plan.changes, vanished, notes, problems: desired.problems });
  }
  const { after, current, changes, drift, judgement } = plan;
  const replaceReasons = [...plan.replaceReasons];
  const settled = adopted ? 'adopt' : movedFrom ? 'move' : 'no-op';
  const triggered = firedTriggers(resource.lifecycle, planned);
  const byAttributes = plan.action === 'no-op' ? settled : plan.action;
  const action = triggered.length > 0 && (byAttributes === 'no-op' || byAttributes === 'update') ? 'replace' : byAttributes;
  if (action === 'replace') replaceReasons.push(...triggered.filter((t) => !replaceReasons.includes(t)));
  const noDrift = existing.attributes !== null && drift.length === 0;
  return resourceChange({
    ...base,
    action,
    // Equal when nothing changes: one object serves both (the state's own when nothing drifted
    // either), so a large plan without changes holds no view beyond what the state holds.
    before:
      action === 'no-op' || action === 'adopt' || action === 'move' ? (noDrift ? (existing.attributes as JsonObject) : after) : current,
    after: (action === 'no-op' || action === 'adopt' || action === 'move') && noDrift ? (existing.attributes as JsonObject) : after,
    changes,
    drift,
    vanished: false,
    replaceReasons: action === 'replace' ? replaceReasons : [],
    notes: [...desired.notes, ...judgement.notes],
    problems: [...desired.problems, ...judgement.problems],
    observedVersion: observation?.version ?? null,
    ...(adopted ? { adopted } : {}),
    ...(movedFrom ? { movedFrom } : {}),
  });
}
