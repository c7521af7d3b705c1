import { FleetformError } from '../../domain/errors';
import { desireResource } from '../desire';
import { resolveReferences } from '../desired/references';
import type { DesiredResource, DesiredStack } from '../desired/stack';
import { runGraph } from '../graph';
import { isObject, isUnknown, jsonEqual, type JsonObject, type JsonValue } from '../json';
import type { Applied, Desired, KindContext, KindRegistry, ResourceKind } from '../kind';
import { maskPaths } from '../mask';
import { DEPOSED_MARK, type ResourceChange } from '../plan/model';
import { desiredWithLifecycle } from '../plan/resource-core';
import type { StateBackend } from '../state/backend';
import type { State, StateEntry } from '../state/schema';
import { StateSaver } from './state-saver';

/** Receives progress while a plan is applied. */
export interface ApplyReporter {
  start(change: ResourceChange): void;
  done(change: ResourceChange, elapsedMs: number, detail?: string): void;
  failed(change: ResourceChange, error: unknown, elapsedMs: number): void;
  skipped(change: ResourceChange, because: string): void;
}

export interface ApplyStackInput {
  readonly stack: DesiredStack;
  readonly changes: readonly ResourceChange[];
  readonly state: State;
  readonly backend: StateBackend;
  readonly kinds: KindRegistry;
  readonly ctx: KindContext;
  readonly parallelism: number;
  readonly reporter: ApplyReporter;
}

export interface ApplyOutcome {
  readonly applied: number;
  readonly failed: ReadonlyArray<{ address: string; error: unknown }>;
  readonly skipped: readonly string[];
  /** The revision each create or update made, by address, where the kind reports one. */
  readonly revisions?: ReadonlyMap<string, string>;
}

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

/** Applies one stack's planned changes: creates/updates in dependency order, then deletes in reverse. */
export async function applyStack(input: ApplyStackInput): Promise<ApplyOutcome> {
  const { state, kinds, ctx, reporter } = input;
  const saver = new StateSaver(input.backend, state);
  const desired = new Map<string, DesiredResource>(input.stack.resources.map((r) => [r.address, r]));
  const changes = new Map(input.changes.map((c) => [c.address, c]));
  const failed: Array<{ address: string; error: unknown }> = [];
  const skipped: string[] = [];
  const revisions = new Map<string, string>();
  let applied = 0;

  const kindOf = (c: ResourceChange): ResourceKind => kinds.require(c.type, c.address);

  const timed = async (change: ResourceChange, fn: () => Promise<string | undefined>): Promise<void> => {
    const started = Date.now();
    reporter.start(change);
    try {
      const detail = await fn();
      applied++;
      reporter.done(change, Date.now() - started, detail);
    } catch (error) {
      failed.push({ address: change.address, error });
      reporter.failed(change, error, Date.now() - started);
      throw error;
    }
  };

  const record = (change: ResourceChange, entry: StateEntry | null): Promise<void> => saver.record(change.address, entry);

  /** The entry the change starts from: moved from its old address, or standing for the object an interrupted create made. */
  const priorOf = (change: ResourceChange): StateEntry | undefined => {
    const stored = state.resources[change.movedFrom ?? change.address];
    if (!stored || !change.adopted) return stored;
    return { ...stored, ids: { ...change.adopted.ids }, outputs: { ...change.adopted.outputs }, status: 'ok', attributes: null };
  };

  /** Records an adoption or a move before anything else happens to the object. */
  const settle = async (change: ResourceChange): Promise<StateEntry | undefined> => {
    const prior = priorOf(change);
    if (!prior || (!change.adopted && !change.movedFrom)) return prior;
    const batch = new Map<string, StateEntry | null>([[change.address, prior]]);
    if (change.movedFrom) batch.set(change.movedFrom, null);
    await saver.recordAll(batch);
    return prior;
  };

  /** A free state key for a replaced object kept until its delete succeeds. */
  const deposedKey = (address: string): string => {
    for (let n = 1; ; n++) {
      const key = `${address}${DEPOSED_MARK}-${n}`;
      if (!state.resources[key]) return key;
    }
  };

  /** Recorded durably before a create: what it will make, so an interrupted create is found by name, not duplicated. */
  const intentFor = (change: ResourceChange, kind: ResourceKind, view: JsonObject, dependsOn: readonly string[]): StateEntry => ({
    type: change.type,
    ids: {},
    outputs: {},
    attributes: null,
    dependencies: [...dependsOn],
    private: { intent: kind.identity(view)?.key ?? null },
    sensitive_paths: [],
    status: 'creating',
  });

  /** Deletes a replaced object kept as deposed; its record goes only once the service confirmed it gone. */
  const deleteDeposed = async (kind: ResourceKind, key: string, entry: StateEntry): Promise<void> => {
    const result = await kind.delete(ctx, entry);
    await saver.record(key, result === 'deleted' ? null : { ...entry, status: 'deleting' });
  };

  /** Ignored attributes keep what the service holds now (read again: the plan's view is masked). */
  const withLifecycle = async (change: ResourceChange, kind: ResourceKind, resource: DesiredResource, prior: StateEntry | undefined, value: Desired, attributes: JsonObject): Promise<Desired> => {
    const ignoring = resource.lifecycle && resource.lifecycle.ignoreChanges.length > 0;
    if (!ignoring || !prior || change.action === 'create') return value;
    const existing = (await kind.observe(ctx, prior))?.view ?? prior.attributes ?? undefined;
    return desiredWithLifecycle(kind, value, existing, resource.lifecycle, attributes);
  };

  const desire = async (change: ResourceChange, kind: ResourceKind) => {
    const resource = desired.get(change.address);
    if (!resource) throw new FleetformError(`${change.address} is no longer declared by stack ${input.stack.name}`, { hint: 'plan again' });
    const missing: string[] = [];
    const attributes = resolveReferences(resource.attributes, (ref) => {
      const value = state.resources[ref.address]?.outputs[ref.output];
      if (value === undefined) missing.push(`${ref.address}.${ref.output}`);
      return value;
    }) as JsonObject;
    if (missing.length > 0) {
      throw new FleetformError(`${change.address} refers to ${missing.join(', ')}, which is not available`, {
        path: change.address,
        hint: 'apply the resources it depends on first',
      });
    }
    const prior = priorOf(change);
    const desiredValue = await desireResource(kind, ctx, attributes, prior);
    if (desiredValue.problems.length > 0) {
      const p = desiredValue.problems[0];
      throw new FleetformError(p?.message ?? 'invalid', { path: `${change.address}.${p?.path ?? ''}`, hint: p?.hint });
    }
    const value = await withLifecycle(change, kind, resource, prior, desiredValue, attributes);
    const masked = maskPaths(value.view, value.sensitivePaths, state.lineage);
    if (!matchesPlanned(change.after ?? undefined, masked)) {
      throw new ChangedSincePlanError(`the configuration of ${change.address} changed since the plan was made`, {
        path: change.address,
        hint: 'run `fleetform plan` again and review the new plan',
      });
    }
    // The plan's own object when nothing in it was unknown: state and plan then share one view.
    const stored = change.after !== null && jsonEqual(change.after, masked) ? change.after : masked;
    const entryFor = (ids: Applied): StateEntry => ({
      type: change.type,
      ids: { ...ids.ids },
      outputs: { ...ids.outputs },
      attributes: stored,
      dependencies: [...resource.dependsOn],
      private: value.private,
      sensitive_paths: [...value.sensitivePaths],
      status: 'ok',
    });
    const written = (made: Applied): StateEntry => {
      if (made.revision !== undefined) revisions.set(change.address, made.revision);
      return entryFor(made);
    };
    return { view: value.view, entryFor, written, dependsOn: resource.dependsOn };
  };

  const writeNode = async (change: ResourceChange): Promise<void> => {
    const kind = kindOf(change);
    await timed(change, async () => {
      const { view, entryFor, written, dependsOn } = await desire(change, kind);
      const prior = await settle(change);
      const checkpoint = async (ids: Applied): Promise<void> => {
        await record(change, { ...entryFor(ids), attributes: null });
      };
      const intent = intentFor(change, kind, view, dependsOn);
      if (change.action === 'create') {
        // A moved entry whose object vanished is replaced by the intent in the same write.
        const batch = new Map<string, StateEntry | null>([[change.address, intent]]);
        if (change.movedFrom) batch.set(change.movedFrom, null);
        const finishing = state.resources[change.address];
        if (finishing?.status === 'deleting') batch.set(deposedKey(change.address), finishing);
        await saver.recordAll(batch);
        await record(change, written(await kind.create(ctx, view, checkpoint)));
        return 'created';
      }
      if (!prior) throw new FleetformError(`${change.address} is missing from state`, { hint: 'plan again' });
      if (change.action === 'adopt' || change.action === 'move') {
        await record(change, { ...entryFor(prior), attributes: prior.attributes === null ? change.after : prior.attributes });
        return change.action === 'adopt' ? 'adopted' : `moved from ${change.movedFrom ?? ''}`;
      }
      if (change.action === 'update') {
        await record(change, written(await kind.update(ctx, prior, view, prior.attributes === null ? null : change.observedVersion)));
        return 'updated';
      }
      const retain = kind.retainOnDelete(prior);
      if (change.replaceOrder === 'create-first') {
        // The old object stays in state (deposed) until the service confirmed it gone.
        const key = deposedKey(change.address);
        await saver.recordAll(new Map<string, StateEntry | null>([[change.address, intent], ...(retain ? [] : ([[key, prior]] as const))]));
        await record(change, written(await kind.create(ctx, view, checkpoint)));
        if (!retain) await deleteDeposed(kind, key, prior);
      } else {
        if (!retain) {
          const result = await kind.delete(ctx, prior);
          if (result === 'pending') await saver.record(deposedKey(change.address), { ...prior, status: 'deleting' });
        }
        await record(change, intent);
        await record(change, written(await kind.create(ctx, view, checkpoint)));
      }
      return 'replaced';
    });
  };

  const removeNode = async (change: ResourceChange): Promise<void> => {
    const kind = kindOf(change);
    await timed(change, async () => {
      const entry = await settle(change);
      if (!entry) return 'already gone';
      if (change.action === 'forget') {
        await record(change, null);
        return 'removed from state';
      }
      const result = await kind.delete(ctx, entry);
      if (result === 'pending') {
        await record(change, { ...entry, status: 'deleting' });
        return 'deletion started; it finishes on the service and a later apply removes it';
      }
      await record(change, null);
      return 'destroyed';
    });
  };

  const onSkip = (address: string, because: string): void => {
    const change = changes.get(address);
    skipped.push(address);
    if (change) reporter.skipped(change, because);
  };

  const writes = input.changes.filter((c) => c.action === 'create' || c.action === 'update' || c.action === 'replace' || c.action === 'adopt' || c.action === 'move');
  await runGraph(
    writes.map((c) => c.address),
    (a) => changes.get(a)?.dependsOn ?? [],
    input.parallelism,
    (a) => writeNode(changes.get(a) as ResourceChange),
    onSkip,
  );
  const removals = input.changes.filter((c) => c.action === 'delete' || c.action === 'forget');
  const removing = new Set(removals.map((c) => c.address));
  await runGraph(
    removals.map((c) => c.address),
    (a) => removals.filter((c) => removing.has(c.address) && c.dependsOn.includes(a)).map((c) => c.address),
    input.parallelism,
    (a) => removeNode(changes.get(a) as ResourceChange),
    onSkip,
  );
  await saver.flush();
  return { applied, failed, skipped, ...(revisions.size > 0 ? { revisions } : {}) };
}
