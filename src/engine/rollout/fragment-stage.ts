/**
 * A fragment's rollout writes no machine config of its own: it pins a machine's import of
 * the fragment to a revision (the import's `version`), guarded by the part's last update,
 * and puts the version it followed back. The revision a gate waits for is the part's
 * config revision with the fragments it reaches (` +<fragment id>@<revision>`).
 */
import { ServiceError, type ServiceClient } from '../../api/client';
import { errorMessage as message, FleetformError } from '../../domain/errors';
import { isRevisionNumber } from '../../domain/fragments';
import { importedVersion, withFragmentVersion, type RolloutPlan, type RolloutWaveMachine } from '../../domain/rollout';
import type { State, StateEntry } from '../state/schema';
import { ROLLED_OUT_TYPE } from './plan';
import { readFromOf } from '../kinds/machine-config-view';
import { cachedServiceFetch, configRevision, revisionTime, type FragmentFetch } from '../fragment-fetch';
import type { MachineStatusSource } from '../health/machine-status-source';
import { mapLimited } from '../map-limited';
import type { RolloutEvents } from './events';
import { awaitWrittenBack, pollInterval, type RolloutStage, type StageWrite, type Written, type WrittenBack } from './runner';

export interface FragmentStageInput {
  readonly client: ServiceClient;
  readonly source: MachineStatusSource;
  readonly events: RolloutEvents;
  readonly concurrency: number;
  readonly pollMs?: number;
  readonly fragmentId: string;
  /** The revision the waves pin machines to. */
  readonly toRevision: string;
  /** The revision machines ran before: a machine following the latest revision goes back to it. */
  readonly fromRevision: string;
  /** The version each machine's import follows (`''` the latest revision, else a tag), by address; joiners are added. */
  readonly follows: Map<string, string>;
  /** The tags that name the new revision once every wave passed: an import following one joins, as one following the latest. */
  readonly tags: readonly string[];
}

export interface Pinned {
  readonly partId: string;
  /** The version the import had before (`''` the latest revision). */
  readonly was: string;
  /** The config revision the machine runs once it ingested the pin. */
  readonly revision: string;
}

/**
 * Sets the part's import of the fragment to `version` (undefined: the latest revision),
 * guarded by `expected` (the time of the write the caller knows of) when given.
 */
export async function pinImport(
  client: ServiceClient,
  partId: string,
  fragmentId: string,
  version: string | undefined,
  expected?: string,
  fetch: FragmentFetch = cachedServiceFetch(client.appClient),
): Promise<Pinned> {
  const part = await client.appClient.getMachinePart(partId);
  const now = part.lastUpdated?.toISOString() ?? '';
  if (expected !== undefined && now !== expected) {
    throw new FragmentPinConflict(
      `its config was changed on the service after the rollout wrote it (revision ${now}, not ${expected}); left as it is`,
      { path: partId, hint: "set the import's version by hand, or apply the configuration you want" },
    );
  }
  const was = importedVersion(part.config as Record<string, unknown>, fragmentId) ?? '';
  const config = withFragmentVersion(part.config as Record<string, unknown>, fragmentId, version);
  const after = await client.appClient.updateMachinePart(part.id, part.name, config, part.lastUpdated, readFromOf(part));
  return { partId, was, revision: await configRevision(after.lastUpdated?.toISOString() ?? '', config, partId, fetch) };
}

/** A machine whose config changed on the service while a rollout pinned it. */
export class FragmentPinConflict extends FleetformError {}

/**
 * What the import goes back to: its tag; following the latest revision (the new one), the
 * revision it was pinned to while the new one was saved, else the old revision.
 */
function restoredVersion(follows: string, was: string, toRevision: string, fromRevision: string): string {
  if (follows !== '') return follows;
  return was !== '' && was !== toRevision ? was : fromRevision;
}

/**
 * The stack's machine that imports the fragment at its latest revision or at a tag the
 * rollout moves, found outside the waves: it joins them. One following the latest revision
 * (now the new one) is pinned to the revision the others run until its wave writes it; one
 * following a tag runs the old revision until the tag moves.
 */
async function joinerOf(
  input: FragmentStageInput,
  address: string,
  entry: StateEntry,
  fetch: FragmentFetch,
): Promise<RolloutWaveMachine | undefined> {
  const partId = entry.ids.part_id;
  if (!partId) return undefined;
  const part = await input.client.appClient.getMachinePart(partId);
  const follows = importedVersion(part.config as Record<string, unknown>, input.fragmentId);
  if (follows === undefined || (follows !== '' && !input.tags.includes(follows))) return undefined;
  if (follows === '') await pinImport(input.client, partId, input.fragmentId, input.fromRevision, undefined, fetch);
  input.follows.set(address, follows);
  const declared = entry.attributes?.name;
  return { address, name: typeof declared === 'string' ? declared : part.name, follows };
}

/** The stack's machines that started to import the fragment (as the waves take it) since the rollout began. */
async function findJoiners(
  input: FragmentStageInput,
  state: State,
  known: ReadonlySet<string>,
  fetch: FragmentFetch,
): Promise<RolloutWaveMachine[]> {
  const candidates = Object.entries(state.resources).filter(([address, e]) => e.type === ROLLED_OUT_TYPE && !known.has(address));
  const found = await mapLimited(candidates, input.concurrency, ([address, entry]) => joinerOf(input, address, entry, fetch));
  return found.filter((m): m is RolloutWaveMachine => m !== undefined);
}

export function fragmentStage(input: FragmentStageInput): RolloutStage {
  const { client, events, source } = input;
  const fetch = cachedServiceFetch(client.appClient);
  return {
    pending: () => true,
    joiners: (state, known) => findJoiners(input, state, known, fetch),
    async write(targets, state) {
      const out = new Map<string, StageWrite>();
      await mapLimited(targets, input.concurrency, async (m) => {
        const prior = state.resources[m.address];
        const partId = prior?.ids.part_id;
        if (!prior || !partId) {
          out.set(m.address, { partId: undefined, error: 'it has no part in the state' });
          return;
        }
        try {
          const pinned = await pinImport(client, partId, input.fragmentId, input.toRevision, undefined, fetch);
          const back = restoredVersion(input.follows.get(m.address) ?? '', pinned.was, input.toRevision, input.fromRevision);
          out.set(m.address, { partId, baseline: { config: undefined, revision: back }, prior, revision: pinned.revision });
        } catch (err) {
          const changed = err instanceof ServiceError && err.code === 'FAILED_PRECONDITION';
          out.set(m.address, {
            partId,
            error: changed
              ? 'its config was changed on the service while it was pinned; left as it is'
              : `its pin could not be written: ${message(err)}`,
          });
        }
      });
      return out;
    },
    async rollBack(written: readonly Written[], plan: RolloutPlan) {
      const name = plan.policy.name;
      const back: WrittenBack[] = [];
      const say = (w: Written, ok: boolean, detail: string): void => {
        w.outcome.rollback = { ok, detail };
        events({ type: 'rolled-back', rollout: name, machine: w.outcome.machine, ok, detail });
      };
      await mapLimited(written, input.concurrency, async (w) => {
        try {
          const pinned = await pinImport(client, w.partId, input.fragmentId, w.baseline.revision, revisionTime(w.revision), fetch);
          back.push({ w, revision: pinned.revision });
        } catch (err) {
          if (err instanceof FragmentPinConflict) say(w, false, err.message);
          else if (err instanceof ServiceError && err.code === 'FAILED_PRECONDITION')
            say(w, false, 'its config was changed on the service while it was rolled back; left as it is');
          else say(w, false, `the write failed: ${message(err)}`);
        }
      });
      const where = (w: Written): string =>
        isRevisionNumber(w.baseline.revision)
          ? `pinned to revision ${w.baseline.revision} of the fragment`
          : `back on tag ${w.baseline.revision} of the fragment`;
      await awaitWrittenBack(
        back,
        (partId) => source.status(partId),
        {
          concurrency: input.concurrency,
          pollMs: input.pollMs ?? pollInterval(plan.policy.gate.settle_ms),
          timeoutMs: plan.policy.gate.timeout_ms,
        },
        {
          running: (w) => say(w, true, `${where(w)}, running it again`),
          late: (w) => say(w, true, `${where(w)}; the machine had not ingested it within ${plan.policy.gate.timeout_ms} ms`),
        },
      );
    },
  };
}
