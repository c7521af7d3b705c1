/**
 * The stack's rollout stage: each machine's planned config written through the executor,
 * guarded by the revision the plan observed; a rollback writes back the config each had.
 */
import { WRITE_FAILURE_PREFIX } from '../../domain/model-promotion';
import { ServiceError, type ServiceClient } from '../../api/client';
import type { RolloutPlan } from '../../domain/rollout';
import { errorMessage as message } from '../../domain/errors';
import { isObject } from '../../domain/json-value';
import type { MachineReading } from '../health/machine-status-source';
import type { State, StateEntry } from '../state/schema';
import { cachedServiceFetch, configRevision, importsFragments, revisionTime, type FragmentFetch } from '../fragment-fetch';
import { mapLimited } from '../map-limited';
import type { MachineOutcome } from './events';
import { configAtRevision } from './part-history';
import { plannedConfig } from './plan';
import { pollInterval, type RolloutStage, type RunRolloutInput, type StageWrite, type Written } from './run-types';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The stack's rollout: each machine's planned config written through the executor, guarded by the revision the plan observed. */
export function stackStage(input: RunRolloutInput): RolloutStage {
  const { client } = input;
  const reads = Math.max(input.concurrency, input.readConcurrency ?? 32);
  const fetch = cachedServiceFetch(client.appClient);
  return {
    pending: (address) => input.changes.has(address),
    async write(targets, state) {
      // The revision each machine has now: the plan observed it, and the write is guarded by it, so
      // the part history keeps its config for a rollback. Read only when the plan did not observe it.
      const baselines = new Map<string, { partId: string } & Written['baseline']>();
      await mapLimited(targets, reads, async (m) => {
        const partId = state.resources[m.address]?.ids.part_id;
        if (!partId) return;
        const observed = input.changes.get(m.address)?.observedVersion;
        if (observed && !Number.isNaN(Date.parse(observed))) {
          baselines.set(m.address, { partId, config: undefined, revision: observed });
          return;
        }
        const part = await client.appClient.getMachinePart(partId);
        baselines.set(m.address, {
          partId,
          config: part.config as Record<string, unknown>,
          ...(part.configJson === undefined ? {} : { configJson: part.configJson }),
          revision: part.lastUpdated?.toISOString() ?? '',
        });
      });
      const applied = await input.apply(
        targets.flatMap((m) => {
          const change = input.changes.get(m.address);
          return change ? [change] : [];
        }),
      );
      // A machine that joined as a new one has its part once created: nothing to go back to.
      await addCreatedBaselines(input, targets, baselines, state);
      const writeFailed = new Map(applied.failed.map((f) => [f.address, f.error]));
      const notWritten = new Set([...writeFailed.keys(), ...applied.skipped]);
      const out = new Map<string, StageWrite>();
      await mapLimited(targets, reads, async (m) => {
        const baseline = baselines.get(m.address);
        const prior = state.resources[m.address];
        if (notWritten.has(m.address) || !baseline || !prior) {
          out.set(m.address, {
            partId: baseline?.partId,
            error: `${WRITE_FAILURE_PREFIX}: ${message(writeFailed.get(m.address) ?? 'skipped by the executor')}`,
          });
          return;
        }
        const planned = plannedConfig(input.changes.get(m.address)?.after);
        const revision = await writtenRevision(client, baseline.partId, applied.revisions?.get(m.address), planned, fetch);
        out.set(m.address, { partId: baseline.partId, baseline, prior, revision });
      });
      return out;
    },
    rollBack: (written, plan) => rollBack(input, written, plan),
  };
}

/** The baseline revision of a machine the rollout created: it had no config before. */
export const CREATED_BASELINE = '';

/** The baselines of the targets the write created (their parts and state entries exist only now), kept in `state`. */
async function addCreatedBaselines(
  input: RunRolloutInput,
  targets: readonly MachineOutcome[],
  baselines: Map<string, { partId: string } & Written['baseline']>,
  state: State,
): Promise<void> {
  const created = targets.filter((m) => !baselines.has(m.address) && input.changes.get(m.address)?.action === 'create');
  if (created.length === 0) return;
  const after = await input.readState();
  for (const m of created) {
    const entry = after.resources[m.address];
    const partId = entry?.ids.part_id;
    if (!entry || !partId) continue;
    state.resources[m.address] = entry;
    baselines.set(m.address, { partId, config: undefined, revision: CREATED_BASELINE });
  }
}

/**
 * The config revision a machine runs once it ingested a write: the write's time (as the
 * executor reports it, else the part's), then every fragment its config reaches, as the
 * machine reports its revision. A config known to import nothing needs no read.
 */
async function writtenRevision(
  client: ServiceClient,
  partId: string,
  time: string | undefined,
  planned: unknown,
  fetch: FragmentFetch,
): Promise<string> {
  const reachesFragments = !isObject(planned) || importsFragments(planned);
  if (time !== undefined && !reachesFragments) return time;
  const part = await client.appClient.getMachinePart(partId);
  const at = time ?? part.lastUpdated?.toISOString() ?? '';
  return reachesFragments ? configRevision(at, part.config, partId, fetch) : at;
}

/**
 * Writes every changed machine back to the config it had, guarded by the revision the
 * rollout wrote (a machine changed since is left as it is, and said so), puts its state
 * entry back, and waits (up to the gate's timeout) for it to run that config again.
 */
export async function rollBack(
  input: Pick<RunRolloutInput, 'client' | 'events' | 'source' | 'concurrency' | 'pollMs' | 'restoreEntries'>,
  written: readonly Written[],
  plan: RolloutPlan,
): Promise<void> {
  const { client, events, source } = input;
  const name = plan.policy.name;
  const restored = new Map<string, StateEntry>();
  const back: WrittenBack[] = [];
  const fetch = cachedServiceFetch(client.appClient);
  await mapLimited(written, input.concurrency, async (w) => {
    const say = (ok: boolean, detail: string): void => {
      w.outcome.rollback = { ok, detail };
      events({ type: 'rolled-back', rollout: name, machine: w.outcome.machine, ok, detail });
    };
    if (w.baseline.revision === CREATED_BASELINE) {
      say(false, 'it joined the rollout as a new machine: left on its config (remove it from the code to delete it)');
      return;
    }
    try {
      const part = await client.appClient.getMachinePart(w.partId);
      const now = part.lastUpdated?.toISOString() ?? '';
      if (now !== revisionTime(w.revision)) {
        say(
          false,
          `its config was changed on the service after the rollout wrote it (revision ${now}, not ${revisionTime(w.revision)}); left as it is`,
        );
        return;
      }
      const baseline = w.baseline.config
        ? { config: w.baseline.config, configJson: w.baseline.configJson }
        : await configAtRevision(client, w.partId, w.baseline.revision);
      const readFrom = baseline.configJson === undefined ? [] : [baseline.configJson];
      const after = await client.appClient.updateMachinePart(part.id, part.name, baseline.config, part.lastUpdated, readFrom);
      restored.set(w.outcome.address, w.prior);
      const time = after.lastUpdated?.toISOString() ?? '';
      back.push({ w, revision: await configRevision(time, baseline.config, w.partId, fetch) });
    } catch (err) {
      const changed = err instanceof ServiceError && err.code === 'FAILED_PRECONDITION';
      say(
        false,
        changed ? 'its config was changed on the service while it was rolled back; left as it is' : `the write failed: ${message(err)}`,
      );
    }
  });
  if (restored.size > 0) await input.restoreEntries(restored);
  const said = (w: Written, detail: string): void => {
    w.outcome.rollback = { ok: true, detail };
    events({ type: 'rolled-back', rollout: name, machine: w.outcome.machine, ok: true, detail });
  };
  await awaitWrittenBack(
    back,
    (partId) => source.read(partId),
    {
      concurrency: input.concurrency,
      pollMs: input.pollMs ?? pollInterval(plan.policy.gate.settle_ms),
      timeoutMs: plan.policy.gate.timeout_ms,
    },
    {
      running: (w) => said(w, `back on the config it had (revision ${w.baseline.revision}), running it again`),
      late: (w) => said(w, `its previous config is written back; the machine had not ingested it within ${plan.policy.gate.timeout_ms} ms`),
    },
  );
}

/** A machine written back by a rollback, and the revision it runs once it has ingested that write. */
export interface WrittenBack {
  readonly w: Written;
  readonly revision: string;
}

/**
 * Waits, up to `timeoutMs`, until each machine written back runs the revision of that
 * write (read through `read`), and says of each whether it did (`running`) or had not
 * within the timeout (`late`).
 */
export async function awaitWrittenBack(
  back: readonly WrittenBack[],
  read: (partId: string) => Promise<MachineReading>,
  options: { readonly concurrency: number; readonly pollMs: number; readonly timeoutMs: number },
  say: { running(w: Written): void; late(w: Written): void },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let waiting = back;
  for (;;) {
    const still: WrittenBack[] = [];
    await mapLimited(waiting, options.concurrency, async (b) => {
      const reading = await read(b.w.partId);
      if (reading.reachable && reading.status.revision === b.revision) say.running(b.w);
      else still.push(b);
    });
    waiting = still;
    if (waiting.length === 0) return;
    if (Date.now() > deadline) break;
    await sleep(options.pollMs);
  }
  for (const b of waiting) say.late(b.w);
}
