/** Starts and stops the benchmark's emulator child process. */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import type { EmulatorCredentials } from '../src/emulator';

export interface BenchEmulator {
  readonly url: string;
  readonly credentials: EmulatorCredentials;
  readonly dataDir: string;
  stop(): Promise<void>;
}

/** Spawns `emulator-child.ts` and waits for its ready line. */
export async function spawnEmulator(): Promise<BenchEmulator> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'emulator-child.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`emulator exited early (code ${code})`)));
  });
  const ready = JSON.parse(line) as { url: string; credentials: EmulatorCredentials; dataDir: string };
  return {
    ...ready,
    stop: async () => {
      child.stdin.end();
      await exited;
    },
  };
}
