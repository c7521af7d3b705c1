/**
 * Writes one stack's changes at once, ungated: creates, updates, replacements, adoptions and
 * moves in dependency order, then deletes in reverse. Every change is a few named steps over
 * one {@link WriteRun}: what the run reads (stack, state, service) and what it tallies.
 */
import { FleetformError } from '../../domain/errors';
import { desireResource } from '../desire';
import { resolveReferences } from '../desired/references';
import type { DesiredResource } from '../desired/stack';
import { runGraph } from '../graph';
import { isObject, isUnknown, jsonEqual, type JsonObject, type JsonValue } from '../json';
import type { Applied, Desired, KindContext, ResourceKind } from '../kind';
import { maskPaths } from '../mask';
import { DEPOSED_MARK, type ResourceChange } from '../plan-model';
import { desiredWithLifecycle } from '../plan/resource-core';
import { takenBackEntry } from '../plan/take-back';
import type { State, StateEntry } from '../state/schema';
import type { ApplyOutcome } from '../apply-outcome';
import type { ApplyStackInput } from './outcome';
import { StateSaver } from './state-saver';

/** True when `actual` is what the plan promised; a value unknown in the plan matches anything. */
export function matchesPlanned(planned: JsonValue | undefined, actual: JsonValue | undefined): boolean {
  if (isUnknown(planned)) return true;
  if (Array.isArray(planned)) {
    return Array.isArray(actual) && planned.length === actual.length && planned.every((p, i) => matchesPlanned(p, actual[i]));
  }
  if (isObject(planned)) {
    if (!isObject(actual)) return false;
    const keys = new Set([...Object.keys(planned), ...Object.keys(actual)]);
    return [...keys].every((k) => matchesPlanned(planned[k], actual[k]));
  }
  return planned === actual;
}

class ChangedSincePlanError extends FleetformError {}

/** One run of writes: what its steps read, and what they tally (the only state they share). */
interface WriteRun {
  readonly input: ApplyStackInput;
  readonly state: State;
  readonly ctx: KindContext;
  readonly saver: StateSaver;
  readonly declared: ReadonlyMap<string, DesiredResource>;
  readonly changes: ReadonlyMap<string, ResourceChange>;
  readonly tally: {
    applied: number;
    readonly failed: Array<{ address: string; error: unknown }>;
    readonly skipped: string[];
    readonly revisions: Map<string, string>;
  };
}

/** A change's object as the apply writes it: the view sent to the service and what its state entry keeps. */
interface WantedObject {
  readonly change: ResourceChange;
  readonly view: JsonObject;
  /** The attributes the state keeps: the plan's own object when nothing in it was unknown. */
  readonly stored: JsonObject;
  readonly value: Desired;
  readonly dependsOn: readonly string[];
}

/** Writes one stack's planned changes: creates/updates in dependency order, then deletes in reverse. */
export async function applyWrites(input: ApplyStackInput): Promise<ApplyOutcome> {
  const run = startRun(input);
  await runWrites(run);
  await runRemovals(run);
  await run.saver.flush();
  const { applied, failed, skipped, revisions } = run.tally;
  return { applied, failed, skipped, ...(revisions.size > 0 ? { revisions } : {}) };
}

function startRun(input: ApplyStackInput): WriteRun {
  return {
    input,
    state: input.state,
    ctx: input.ctx,
    saver: new StateSaver(input.backend, input.state),
    declared: new Map(input.stack.resources.map((r) => [r.address, r])),
    changes: new Map(input.changes.map((c) => [c.address, c])),
    tally: { applied: 0, failed: [], skipped: [], revisions: new Map() },
  };
}

const WRITE_ACTIONS = new Set<ResourceChange['action']>(['create', 'update', 'replace', 'adopt', 'move']);
const REMOVE_ACTIONS = new Set<ResourceChange['action']>(['delete', 'forget']);

/** Creates, updates, replacements, adoptions and moves, each after what it depends on. */
async function runWrites(run: WriteRun): Promise<void> {
  const writes = run.input.changes.filter((c) => WRITE_ACTIONS.has(c.action));
  await runGraph(
    writes.map((c) => c.address),
    (a) => run.changes.get(a)?.dependsOn ?? [],
    run.input.parallelism,
    (a) => writeChange(run, changeAt(run, a)),
    (a, because) => skip(run, a, because),
  );
}

/** Deletes and forgets, each before what it depends on. */
async function runRemovals(run: WriteRun): Promise<void> {
  const removals = run.input.changes.filter((c) => REMOVE_ACTIONS.has(c.action));
  const removing = new Set(removals.map((c) => c.address));
  await runGraph(
    removals.map((c) => c.address),
    (a) => removals.filter((c) => removing.has(c.address) && c.dependsOn.includes(a)).map((c) => c.address),
    run.input.parallelism,
    (a) => removeChange(run, changeAt(run, a)),
    (a, because) => skip(run, a, because),
  );
}

function changeAt(run: WriteRun, address: string): ResourceChange {
  return run.changes.get(address) as ResourceChange;
}

function kindOf(run: WriteRun, change: ResourceChange): ResourceKind {
  return run.input.kinds.require(change.type, change.address);
}

function skip(run: WriteRun, address: string, because: string): void {
  const change = run.changes.get(address);
  run.tally.skipped.push(address);
  if (change) run.input.reporter.skipped(change, because);
}

/** Runs one change's step, reporting its start and end and tallying it; the step's result is the reporter's detail. */
async function timed(run: WriteRun, change: ResourceChange, step: () => Promise<string | undefined>): Promise<void> {
  const { reporter } = run.input;
  const started = Date.now();
  reporter.start(change);
  try {
    const detail = await step();
    run.tally.applied++;
    reporter.done(change, Date.now() - started, detail);
  } catch (error) {
    if (error instanceof FleetformError) error.atAddress(change.address);
    run.tally.failed.push({ address: change.address, error });
    reporter.failed(change, error, Date.now() - started);
    throw error;
  }
}

function record(run: WriteRun, change: ResourceChange, entry: StateEntry | null): Promise<void> {
  return run.saver.record(change.address, entry);
}

/** The entry the change starts from: moved from its old address, or standing for the object an interrupted create made. */
function priorOf(run: WriteRun, change: ResourceChange): StateEntry | undefined {
  const stored = run.state.resources[change.movedFrom ?? change.address] ?? retakenEntry(change);
  if (!stored || !change.adopted) return stored;
  return { ...stored, ids: { ...change.adopted.ids }, outputs: { ...change.adopted.outputs }, status: 'ok', attributes: null };
}

/** The entry of an object an earlier destroy kept, which the plan takes back into state. */
function retakenEntry(change: ResourceChange): StateEntry | undefined {
  return change.adopted?.foundAs === 'retained' ? takenBackEntry(change.type, change.adopted, change.dependsOn) : undefined;
}

/** Records an adoption or a move before anything else happens to the object. */
async function settle(run: WriteRun, change: ResourceChange): Promise<StateEntry | undefined> {
  const prior = priorOf(run, change);
  if (!prior || (!change.adopted && !change.movedFrom)) return prior;
  const batch = new Map<string, StateEntry | null>([[change.address, prior]]);
  if (change.movedFrom) batch.set(change.movedFrom, null);
  await run.saver.recordAll(batch);
  return prior;
}

/** A free state key for a replaced object kept until its delete succeeds. */
function deposedKey(state: State, address: string): string {
  for (let n = 1; ; n++) {
    const key = `${address}${DEPOSED_MARK}-${n}`;
    if (!state.resources[key]) return key;
  }
}

/** Recorded durably before a create: what it will make, so an interrupted create is found by name, not duplicated. */
function intentFor(kind: ResourceKind, want: WantedObject): StateEntry {
  return {
    type: want.change.type,
    ids: {},
    outputs: {},
    attributes: null,
    dependencies: [...want.dependsOn],
    private: { intent: kind.identity(want.view)?.key ?? null },
    sensitive_paths: [],
    status: 'creating',
  };
}

/** The state entry of the wanted object as written (ids and outputs from the service). */
function entryFor(want: WantedObject, made: Applied): StateEntry {
  return {
    type: want.change.type,
    ids: { ...made.ids },
    outputs: { ...made.outputs },
    attributes: want.stored,
    dependencies: [...want.dependsOn],
    private: want.value.private,
    sensitive_paths: [...want.value.sensitivePaths],
    status: 'ok',
  };
}

/** The entry of a write the service made, its revision kept for the caller. */
function written(run: WriteRun, want: WantedObject, made: Applied): StateEntry {
  if (made.revision !== undefined) run.tally.revisions.set(want.change.address, made.revision);
  return entryFor(want, made);
}

/** Deletes a replaced object kept as deposed; its record goes only once the service confirmed it gone. */
async function deleteDeposed(run: WriteRun, kind: ResourceKind, key: string, entry: StateEntry): Promise<void> {
  const result = await kind.delete(run.ctx, entry);
  await run.saver.record(key, result === 'deleted' ? null : { ...entry, status: 'deleting' });
}

/** The declared attributes with references resolved from the state as it is now. */
function resolvedAttributes(run: WriteRun, change: ResourceChange, resource: DesiredResource): JsonObject {
  const missing: string[] = [];
  const attributes = resolveReferences(resource.attributes, (ref) => {
    const value = run.state.resources[ref.address]?.outputs[ref.output];
    if (value === undefined) missing.push(`${ref.address}.${ref.output}`);
    return value;
  }) as JsonObject;
  if (missing.length > 0) {
    throw new FleetformError(`${change.address} refers to ${missing.join(', ')}, which is not available`, {
      path: change.address,
      hint: 'apply the resources it depends on first',
    });
  }
  return attributes;
}

/** Ignored attributes keep what the service holds now (read again: the plan's view is masked). */
async function withLifecycle(
  run: WriteRun,
  change: ResourceChange,
  kind: ResourceKind,
  resource: DesiredResource,
  prior: StateEntry | undefined,
  value: Desired,
  attributes: JsonObject,
): Promise<Desired> {
  const ignoring = resource.lifecycle && resource.lifecycle.ignoreChanges.length > 0;
  if (!ignoring || !prior || change.action === 'create') return value;
  const existing = (await kind.observe(run.ctx, prior))?.view ?? prior.attributes ?? undefined;
  return desiredWithLifecycle(kind, value, existing, resource.lifecycle, attributes);
}

/** The object the change writes, desired again from the declaration and refused when it is not what the plan showed. */
async function wanted(run: WriteRun, change: ResourceChange, kind: ResourceKind): Promise<WantedObject> {
  const resource = run.declared.get(change.address);
  if (!resource)
    throw new FleetformError(`${change.address} is no longer declared by stack ${run.input.stack.name}`, { hint: 'plan again' });
  const attributes = resolvedAttributes(run, change, resource);
  const prior = priorOf(run, change);
  const desired = await desireResource(kind, run.ctx, attributes, prior);
  if (desired.problems.length > 0) {
    const p = desired.problems[0];
    throw new FleetformError(p?.message ?? 'invalid', { path: `${change.address}.${p?.path ?? ''}`, hint: p?.hint });
  }
  const value = await withLifecycle(run, change, kind, resource, prior, desired, attributes);
  const masked = maskPaths(value.view, value.sensitivePaths, run.state.lineage);
  if (!matchesPlanned(change.after ?? undefined, masked)) {
    throw new ChangedSincePlanError(`the configuration of ${change.address} changed since the plan was made`, {
      path: change.address,
      hint: 'run `fleetform plan` again and review the new plan',
    });
  }
  // The plan's own object when nothing in it was unknown: state and plan then share one view.
  const stored = change.after !== null && jsonEqual(change.after, masked) ? change.after : masked;
  return { change, view: value.view, stored, value, dependsOn: resource.dependsOn };
}

/** A create's checkpoint: the ids the service gave, recorded before the create returns. */
function checkpointOf(run: WriteRun, want: WantedObject): (ids: Applied) => Promise<void> {
  return (ids) => record(run, want.change, { ...entryFor(want, ids), attributes: null });
}

/** Writes one create, update, replacement, adoption or move. */
async function writeChange(run: WriteRun, change: ResourceChange): Promise<void> {
  const kind = kindOf(run, change);
  await timed(run, change, async () => {
    const want = await wanted(run, change, kind);
    const prior = await settle(run, change);
    if (change.action === 'create') return createObject(run, kind, want);
    if (!prior) throw new FleetformError(`${change.address} is missing from state`, { hint: 'plan again' });
    if (change.action === 'adopt' || change.action === 'move') return keepObject(run, want, prior);
    if (change.action === 'update') return updateObject(run, kind, want, prior);
    if (change.replaceOrder === 'create-first') await replaceCreatingFirst(run, kind, want, prior);
    else await replaceDeletingFirst(run, kind, want, prior);
    return 'replaced';
  });
}

async function createObject(run: WriteRun, kind: ResourceKind, want: WantedObject): Promise<string> {
  const { change } = want;
  // A moved entry whose object vanished is replaced by the intent in the same write.
  const batch = new Map<string, StateEntry | null>([[change.address, intentFor(kind, want)]]);
  if (change.movedFrom) batch.set(change.movedFrom, null);
  const finishing = run.state.resources[change.address];
  if (finishing?.status === 'deleting') batch.set(deposedKey(run.state, change.address), finishing);
  await run.saver.recordAll(batch);
  await record(run, change, written(run, want, await kind.create(run.ctx, want.view, checkpointOf(run, want))));
  return 'created';
}

/** An adoption or a move: the object stays as it is, its entry takes the declaration's. */
async function keepObject(run: WriteRun, want: WantedObject, prior: StateEntry): Promise<string> {
  const { change } = want;
  await record(run, change, { ...entryFor(want, prior), attributes: prior.attributes === null ? want.stored : prior.attributes });
  return change.action === 'adopt' ? 'adopted' : `moved from ${change.movedFrom ?? ''}`;
}

async function updateObject(run: WriteRun, kind: ResourceKind, want: WantedObject, prior: StateEntry): Promise<string> {
  const { change } = want;
  await record(
    run,
    change,
    written(run, want, await kind.update(run.ctx, prior, want.view, prior.attributes === null ? null : change.observedVersion)),
  );
  return 'updated';
}

/** The old object stays in state (deposed) until the service confirmed it gone. */
async function replaceCreatingFirst(run: WriteRun, kind: ResourceKind, want: WantedObject, prior: StateEntry): Promise<void> {
  const { change } = want;
  const retain = kind.retainOnDelete(prior);
  const key = deposedKey(run.state, change.address);
  await run.saver.recordAll(
    new Map<string, StateEntry | null>([[change.address, intentFor(kind, want)], ...(retain ? [] : ([[key, prior]] as const))]),
  );
  await record(run, change, written(run, want, await kind.create(run.ctx, want.view, checkpointOf(run, want))));
  if (!retain) await deleteDeposed(run, kind, key, prior);
}

/** The old object goes first; a delete the service finishes later is kept as deposed. */
async function replaceDeletingFirst(run: WriteRun, kind: ResourceKind, want: WantedObject, prior: StateEntry): Promise<void> {
  const { change } = want;
  if (!kind.retainOnDelete(prior)) {
    const result = await kind.delete(run.ctx, prior);
    if (result === 'pending') await run.saver.record(deposedKey(run.state, change.address), { ...prior, status: 'deleting' });
  }
  await record(run, change, intentFor(kind, want));
  await record(run, change, written(run, want, await kind.create(run.ctx, want.view, checkpointOf(run, want))));
}

/** Deletes (or forgets) one object. */
async function removeChange(run: WriteRun, change: ResourceChange): Promise<void> {
  const kind = kindOf(run, change);
  await timed(run, change, async () => {
    const entry = await settle(run, change);
    if (!entry) return 'already gone';
    if (change.action === 'forget') {
      await record(run, change, null);
      return 'removed from state';
    }
    const result = await kind.delete(run.ctx, entry);
    if (result === 'pending') {
      await record(run, change, { ...entry, status: 'deleting' });
      return 'deletion started; it finishes on the service and a later apply removes it';
    }
    await record(run, change, null);
    return 'destroyed';
  });
}
