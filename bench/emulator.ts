/** Starts and stops the benchmark's emulator child process. */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import type { EmulatorCredentials } from '../src/emulator';

export interface BenchEmulator {
  readonly url: string;
  readonly credentials: EmulatorCredentials;
  readonly dataDir: string;
  /** The emulator's process id (its memory can be read from /proc). */
  readonly pid: number;
  stop(): Promise<void>;
}

/**
 * Spawns `emulator-child.ts` (simulated machines checking in every `simulateIntervalMs`, off
 * when unset) and waits for its ready line. With `BENCH_EMULATOR_CPU_PROF=DIR`
 * the emulator writes a CPU profile into DIR when it stops.
 */
export async function spawnEmulator(options: { simulateIntervalMs?: number } = {}): Promise<BenchEmulator> {
  const prof = process.env.BENCH_EMULATOR_CPU_PROF;
  const args = [
    ...(prof ? ['--cpu-prof', '--cpu-prof-dir', prof] : []),
    '--import',
    'tsx',
    path.join(__dirname, 'emulator-child.ts'),
    ...(options.simulateIntervalMs === undefined ? [] : ['--simulate', String(options.simulateIntervalMs)]),
  ];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`emulator exited early (code ${code})`)));
  });
  const ready = JSON.parse(line) as { url: string; credentials: EmulatorCredentials; dataDir: string };
  return {
    ...ready,
    pid: child.pid as number,
    stop: async () => {
      child.stdin.end();
      await exited;
    },
  };
}
