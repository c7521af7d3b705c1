/** An emulator in a child process, with its peak resident memory read from /proc. */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import type { EmulatorCredentials } from '../../../src/emulator';

export interface ChildEmulator {
  readonly url: string;
  readonly port: number;
  readonly credentials: EmulatorCredentials;
  readonly pid: number;
  /** Peak resident set size of the emulator process so far, in bytes (Linux VmHWM). */
  peakRss(): number;
  stop(): Promise<void>;
}

export async function startChildEmulator(dataDir: string, env: Record<string, string>): Promise<ChildEmulator> {
  const root = path.resolve(__dirname, '../../..');
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'serve-child.ts'), dataDir], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`emulator child exited (${String(code)}): ${stderr}`)));
  });
  const started = JSON.parse(line) as { url: string; credentials: EmulatorCredentials };
  const pid = child.pid as number;
  return {
    url: started.url,
    port: Number(new URL(started.url).port),
    credentials: started.credentials,
    pid,
    peakRss: () => {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
      if (kb === undefined) throw new Error(`no VmHWM in /proc/${pid}/status`);
      return Number(kb) * 1024;
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
