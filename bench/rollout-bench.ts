/**
 * What the rollout benches share: the fleet size, parallelism and settle time from the
 * command line, an emulator in its own process, a client, a local state folder and an
 * engine over them, and their closing.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient, type ServiceClient } from '../src/api/client';
import { Engine } from '../src/engine/engine';
import { defaultKinds } from '../src/engine/kinds';
import { LocalStateBackend } from '../src/engine/state/local-backend';
import { spawnEmulator } from './emulator';

export interface RolloutBench {
  readonly machines: number;
  readonly parallelism: number;
  readonly settleMs: number;
  readonly emu: Awaited<ReturnType<typeof spawnEmulator>>;
  readonly client: ServiceClient;
  readonly backend: LocalStateBackend;
  readonly engine: Engine;
  close(): Promise<void>;
}

/** Arguments: machines (1000), parallelism (10), settle ms (2000). */
export async function openRolloutBench(stateDirPrefix: string): Promise<RolloutBench> {
  const machines = Number(process.argv[2] ?? 1000);
  const parallelism = Number(process.argv[3] ?? 10);
  const settleMs = Number(process.argv[4] ?? 2000);
  const emu = await spawnEmulator({ simulateIntervalMs: 1000 });
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), stateDirPrefix));
  const { apiKeyId, apiKey, organizationId, locationId } = emu.credentials;
  const client = await createServiceClient({
    serviceHost: emu.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
  });
  const backend = new LocalStateBackend(stateDir);
  const engine = new Engine({
    client,
    backend,
    kinds: defaultKinds(),
    parallelism,
    lockTimeoutMs: 10_000,
    defaults: { organizationId, locationId },
  });
  return {
    machines,
    parallelism,
    settleMs,
    emu,
    client,
    backend,
    engine,
    async close() {
      await client.close();
      await emu.stop();
      fs.rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
