/**
 * Runs a fresh emulator in its own process (so its CPU and memory stay out of the
 * benchmark's figures) on a temporary data folder, and prints one JSON line with its url,
 * credentials and data folder. Stops on stdin close or SIGTERM. Simulated machines are off
 * (they would add their check-ins to every other figure) unless `--simulate <interval ms>`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startEmulator } from '../src/emulator';

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-bench-emu-'));
  const at = process.argv.indexOf('--simulate');
  const interval = at > 0 ? Number(process.argv[at + 1]) : undefined;
  const simulation = interval === undefined ? { simulate: false } : { simulate: true, checkInIntervalMs: interval };
  // The listing bench inserts jobs dated up to now: a training duration of a century keeps
  // each in the status it was inserted with, as the measured mix requires.
  const emu = await startEmulator({ dataDir, port: 0, simulation, trainingDurationMs: 100 * 365 * 24 * 3600 * 1000 });
  process.stdout.write(`${JSON.stringify({ url: emu.url, credentials: emu.credentials, dataDir })}\n`);
  const stop = async () => {
    await emu.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.stdin.on('end', () => void stop());
  process.stdin.resume();
  process.on('SIGTERM', () => void stop());
}

void main();
