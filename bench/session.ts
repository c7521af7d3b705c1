/**
 * A benchmark session: a synthesized fleet (revision 0 and 1), a fresh emulator child, our
 * client and an engine with a local state backend in a temporary folder.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient, type ServiceClient } from '../src/api/client';
import { EmulatorService } from '../src/api/emulator-control';
import { readStacks } from '../src/engine/desired/read-stacks';
import type { DesiredStack } from '../src/engine/desired/stack';
import { Engine } from '../src/engine/engine';
import { defaultKinds } from '../src/engine/kinds';
import { LocalStateBackend } from '../src/engine/state/local-backend';
import { spawnEmulator, type BenchEmulator } from './emulator';
import { EXTRA_MODULES, FLEET_STACK, synthFleet } from './fleet';
import { timed } from './stats';

const silent = { start() {}, done() {}, failed() {}, skipped() {} };

export interface Session {
  readonly work: string;
  readonly emu: BenchEmulator;
  readonly client: ServiceClient;
  readonly engine: Engine;
  readonly backend: LocalStateBackend;
  /** Stacks of revision 0 and of revision 1 (every tenth machine changed). */
  readonly a: DesiredStack[];
  readonly b: DesiredStack[];
  close(): Promise<void>;
}

/** Synthesizes both revisions into `work` (made if absent) and starts the emulator. */
export async function openSession(size: number, parallelism: number, work = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-bench-'))): Promise<Session> {
  const outA = path.join(work, 'out-a');
  const outB = path.join(work, 'out-b');
  if (!fs.existsSync(outA)) synthFleet(outA, size, 0);
  synthFleet(outB, size, 1);
  const [a, b] = [await readStacks(outA), await readStacks(outB)];
  const emu = await spawnEmulator();
  const { apiKeyId, apiKey, organizationId, locationId } = emu.credentials;
  const client = await createServiceClient({ serviceHost: emu.url, credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey } });
  const control = client.clientFor(EmulatorService);
  for (const m of EXTRA_MODULES) await control.publishModuleVersion({ moduleId: m.moduleId, version: m.version, models: m.models.map((x) => ({ ...x })) });
  const backend = new LocalStateBackend(path.join(work, 'state'));
  const engine = new Engine({ client, backend, kinds: defaultKinds(), parallelism, lockTimeoutMs: 10_000, defaults: { organizationId, locationId } });
  return {
    work,
    emu,
    client,
    engine,
    backend,
    a,
    b,
    close: async () => {
      client.close();
      await emu.stop();
      fs.rmSync(work, { recursive: true, force: true });
    },
  };
}

/** Plans the stacks under the lock; returns how many changes the plan holds. */
export async function planOnce(engine: Engine, stacks: DesiredStack[]): Promise<number> {
  const release = await engine.lock([FLEET_STACK], 'bench plan');
  try {
    const { plan } = await engine.plan(stacks, { refresh: true, destroy: false });
    return plan.changes.filter((c) => c.action !== 'no-op').length;
  } finally {
    await release();
  }
}

/** Plans and applies the stacks under the lock, timing each; throws when a change fails. */
export async function planAndApply(engine: Engine, stacks: DesiredStack[]): Promise<{ planS: number; applyS: number; changed: number }> {
  const release = await engine.lock([FLEET_STACK], 'bench apply');
  try {
    let planned: Awaited<ReturnType<Engine['plan']>> | undefined;
    const planS = await timed(async () => (planned = await engine.plan(stacks, { refresh: true, destroy: false })));
    const { plan, states } = planned as NonNullable<typeof planned>;
    const changed = plan.changes.filter((c) => c.action !== 'no-op').length;
    let failed = 0;
    const applyS = await timed(async () => (failed = (await engine.apply(plan, stacks, states, silent)).failed.length));
    if (failed > 0) throw new Error(`${failed} changes failed to apply`);
    return { planS, applyS, changed };
  } finally {
    await release();
  }
}
