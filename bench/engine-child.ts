/**
 * One `fleetform apply` in a process of its own, for its peak memory: reads the synthesized
 * stacks, plans them against the emulator (refresh) and applies the plan, with the
 * benchmark's state folder. Usage: `engine-child.ts SESSION_JSON OUTDIR`, where SESSION_JSON
 * holds `{ url, credentials, stateDir, parallelism }`. Prints one JSON line
 * `{ changed, failed, peak_rss_mb }`.
 */
import * as fs from 'node:fs';
import { createServiceClient } from '../src/api/client';
import type { EmulatorCredentials } from '../src/emulator';
import { readStacks } from '../src/engine/desired/read-stacks';
import { Engine } from '../src/engine/engine';
import { defaultKinds } from '../src/engine/kinds';
import { LocalStateBackend } from '../src/engine/state/local-backend';
import { FLEET_STACK } from './fleet';
import { runMain } from './stats';

const silent = { start() {}, done() {}, failed() {}, skipped() {} };

async function main(): Promise<void> {
  const [sessionFile, outdir] = process.argv.slice(2) as [string, string];
  const s = JSON.parse(fs.readFileSync(sessionFile, 'utf8')) as {
    url: string;
    credentials: EmulatorCredentials;
    stateDir: string;
    parallelism: number;
  };
  const { apiKeyId, apiKey, organizationId, locationId } = s.credentials;
  const client = await createServiceClient({ serviceHost: s.url, credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey } });
  const engine = new Engine({
    client,
    backend: new LocalStateBackend(s.stateDir),
    kinds: defaultKinds(),
    parallelism: s.parallelism,
    lockTimeoutMs: 10_000,
    defaults: { organizationId, locationId },
  });
  const release = await engine.lock([FLEET_STACK], 'bench apply');
  try {
    const stacks = await readStacks(outdir);
    const { plan, states } = await engine.plan(stacks, { refresh: true, destroy: false });
    const changed = plan.changes.filter((c) => c.action !== 'no-op').length;
    const failed = (await engine.apply(plan, stacks, states, silent)).failed.length;
    process.stdout.write(`${JSON.stringify({ changed, failed, peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024) })}\n`);
  } finally {
    await release();
    await client.close();
  }
}

runMain(main);
