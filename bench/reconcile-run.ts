/**
 * The reconciler watching a fleet: `reconcile-run.ts SIZE [CHECKS]`. Sets up SIZE machines
 * on an emulator of its own (a child process), then runs the reconciler in this process
 * (drift warn, the engine in-process as `fleetform reconcile` runs it) and measures, per
 * drift check (a cycle with no change): this process's CPU seconds and the emulator's,
 * apart; the average cores that makes at a check every 60 s; the peak memory; how long a
 * drift made on the service takes to be reported; and from a new revision to its apply
 * starting (the app's synthesis excluded: a sizes row measures it). Prints one JSON line.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient } from '../src/api/client';
import { readStacks } from '../src/engine/desired/read-stacks';
import { Engine } from '../src/engine/engine';
import { defaultKinds } from '../src/engine/kinds';
import { LocalStateBackend } from '../src/engine/state/local-backend';
import type { ReconcilerEvent } from '../src/reconciler/events';
import { Reconciler } from '../src/reconciler/reconciler';
import type { ProjectSource } from '../src/reconciler/source';
import { spawnEmulator } from './emulator';
import { synthFleet } from './fleet';
import { cpuSecondsSince, processCpuSeconds, r3, runMain } from './stats';

const INTERVAL_S = 60;

async function main(): Promise<void> {
  const size = Number(process.argv[2] ?? '10000');
  const checks = Number(process.argv[3] ?? '3');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-bench-reconcile-'));
  const outdir = path.join(dir, 'cdktf.out');
  const emulator = await spawnEmulator();
  const { apiKeyId, apiKey, organizationId, locationId } = emulator.credentials;
  const client = await createServiceClient({ serviceHost: emulator.url, credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey } });
  const backend = new LocalStateBackend(path.join(dir, 'state'));
  const engine = new Engine({ client, backend, kinds: defaultKinds(), parallelism: 10, readParallelism: 512, lockTimeoutMs: 10_000, defaults: { organizationId, locationId } });
  try {
    process.stderr.write(`  applying ${size} machines...\n`);
    synthFleet(outdir, size);
    // The fleet is made by an apply in a process of its own: this one's peak memory is the reconciler's.
    const session = path.join(dir, 'session.json');
    fs.writeFileSync(session, JSON.stringify({ url: emulator.url, credentials: emulator.credentials, stateDir: path.join(dir, 'state'), parallelism: 10 }));
    execFileSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'engine-child.ts'), session, outdir], { stdio: ['ignore', 'ignore', 'inherit'] });
    let revision = 0;
    const source: ProjectSource = {
      description: outdir,
      fetch: () => Promise.resolve({ dir: outdir, id: `r${revision}` }),
      hasNew: (than) => Promise.resolve(than !== `r${revision}`),
    };
    const reconciler = new Reconciler({
      source,
      loader: { load: async () => ({ stacks: await readStacks(outdir), engine, lead: () => Promise.resolve(async () => undefined) }), close: async () => undefined },
      apply: 'auto',
      drift: 'warn',
      windows: [],
      intervalMs: INTERVAL_S * 1000,
      pollMs: 50,
      maxDestroy: 0,
      logger: { log: () => undefined },
    });
    const events: ReconcilerEvent[] = [];
    const waiters: Array<{ match: (e: ReconcilerEvent) => boolean; resolve: (e: ReconcilerEvent) => void }> = [];
    reconciler.subscribe((e) => {
      events.push(e);
      for (const w of [...waiters]) if (w.match(e)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(e);
      }
    });
    const next = (match: (e: ReconcilerEvent) => boolean): Promise<ReconcilerEvent> => new Promise((resolve) => waiters.push({ match, resolve }));

    const first = next((e) => e.type === 'cycle-finished' || e.type === 'cycle-failed');
    reconciler.start();
    await first;
    const perCheck: Array<{ own_cpu_s: number; emulator_cpu_s: number; seconds: number }> = [];
    for (let i = 0; i < checks; i++) {
      const cpu = process.cpuUsage();
      const emu = processCpuSeconds(emulator.pid);
      const done = next((e) => e.type === 'cycle-finished' || e.type === 'cycle-failed');
      reconciler.healNow();
      const e = await done;
      if (e.type !== 'cycle-finished') throw new Error(`drift check failed: ${JSON.stringify(e)}`);
      perCheck.push({ own_cpu_s: r3(cpuSecondsSince(cpu)), emulator_cpu_s: r3(processCpuSeconds(emulator.pid) - emu), seconds: r3(e.seconds) });
    }

    // A config edited on the service is reported by the next check.
    const machine = (await client.appClient.listMachines(locationId))[0];
    const part = (await client.appClient.getMachineParts(machine?.id ?? ''))[0];
    if (!part) throw new Error('no part to edit');
    const found = next((e) => e.type === 'drift-found');
    const editedAt = Date.now();
    const components = (part.config.components ?? []) as Array<{ attributes?: Record<string, unknown> }>;
    const drifted = components.map((c, i) => (i === 0 ? { ...c, attributes: { ...c.attributes, edited_by_hand: true } } : c));
    await client.appClient.updateMachinePart(part.id, part.name, { ...part.config, components: drifted }, part.lastUpdated);
    reconciler.healNow();
    await found;
    const driftReportedS = (Date.now() - editedAt) / 1000;

    // A new revision (one machine changed) starts an apply.
    synthFleet(outdir, size, 1);
    const started = next((e) => e.type === 'apply-started');
    const at = Date.now();
    revision += 1;
    await started;
    const revisionToApplyS = (Date.now() - at) / 1000;
    await reconciler.stop();

    const own = perCheck.map((c) => c.own_cpu_s);
    const avgOwn = own.reduce((a, b) => a + b, 0) / own.length;
    const avgEmu = perCheck.map((c) => c.emulator_cpu_s).reduce((a, b) => a + b, 0) / perCheck.length;
    process.stdout.write(
      `${JSON.stringify({
        machines: size,
        checks: perCheck,
        own_cpu_s_per_check: r3(avgOwn),
        emulator_cpu_s_per_check: r3(avgEmu),
        own_cores_at_60s: r3(avgOwn / INTERVAL_S),
        peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
        drift_reported_s: r3(driftReportedS),
        revision_to_apply_s: r3(revisionToApplyS),
      })}\n`,
    );
  } finally {
    await client.close();
    await emulator.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
