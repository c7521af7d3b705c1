import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { createServiceClient, type ServiceClient } from '../../src/api/client';
import { readCredentials, type EmulatorCredentials } from '../../src/emulator';

const BIN = path.resolve(__dirname, '../../bin/fleetform.js');

/** `fleetform emulator serve` as its own process, on a data folder that outlives it. */
export interface EmulatorProcess {
  readonly url: string;
  readonly credentials: EmulatorCredentials;
  readonly env: Record<string, string>;
  readonly client: ServiceClient;
  /** Stops it; resolves to what it printed from start to stop (its fault report included). */
  stop(): Promise<string>;
}

/** How many calls the faults a stopped `emulator serve` printed failed, all together. */
export function firedFaults(stopOutput: string): number {
  return [...stopOutput.matchAll(/^fault \S+ fired (\d+) /gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** Starts the real command with `--fail` specs; resolves once it says where it listens. */
export async function serveEmulator(dataDir: string, fail: readonly string[]): Promise<EmulatorProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    [BIN, 'emulator', 'serve', '--port', '0', '--data', dataDir, '--clock', 'frozen', ...fail.flatMap((f) => ['--fail', f])],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  let out = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.on('close', (code) => reject(new Error(`emulator serve ended (${code}): ${stderr}`)));
  });
  const credentials = readCredentials(dataDir);
  if (!credentials) throw new Error(`no credentials in ${dataDir}`);
  const env = { FLEETFORM_ENDPOINT: url, FLEETFORM_API_KEY: credentials.apiKey, FLEETFORM_API_KEY_ID: credentials.apiKeyId };
  const client = await createServiceClient({
    serviceHost: url,
    credentials: { type: 'api-key', authEntity: credentials.apiKeyId, payload: credentials.apiKey },
  });
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return {
    url,
    credentials,
    env,
    client,
    stop: async () => {
      client.close();
      child.kill('SIGTERM');
      await closed;
      return out;
    },
  };
}
