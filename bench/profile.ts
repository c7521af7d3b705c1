/**
 * Profiles the engine on one fleet size: the setup apply and three plans without changes,
 * each recorded with the V8 profiler into its own .cpuprofile, and prints the functions
 * with the most self time. Usage: `node --import tsx bench/profile.ts [SIZE] [--out DIR]`
 * (set BENCH_EMULATOR_CPU_PROF=DIR to profile the emulator process too).
 */
import * as fs from 'node:fs';
import { Session as Inspector } from 'node:inspector/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { openSession, planAndApply, planOnce } from './session';
import { topSelfTime, type CpuProfile } from './profile-summary';

async function recorded<T>(inspector: Inspector, file: string, fn: () => Promise<T>): Promise<T> {
  await inspector.post('Profiler.start');
  const result = await fn();
  const { profile } = (await inspector.post('Profiler.stop')) as { profile: CpuProfile };
  fs.writeFileSync(file, JSON.stringify(profile));
  process.stdout.write(`\n${path.basename(file)}: top self time\n${topSelfTime(profile, 20)}\n`);
  return result;
}

async function main(): Promise<void> {
  const size = Number(process.argv[2] ?? 1000);
  const i = process.argv.indexOf('--out');
  const out = i > 0 ? (process.argv[i + 1] as string) : fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-profile-'));
  fs.mkdirSync(out, { recursive: true });
  const session = await openSession(size, 10);
  const inspector = new Inspector();
  inspector.connect();
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.setSamplingInterval', { interval: 500 });
  try {
    await recorded(inspector, path.join(out, `apply-create-${size}.cpuprofile`), () => planAndApply(session.engine, session.a));
    await recorded(inspector, path.join(out, `plan-nochange-${size}.cpuprofile`), async () => {
      for (let r = 0; r < 3; r++) await planOnce(session.engine, session.a);
    });
  } finally {
    inspector.disconnect();
    await session.close();
  }
  process.stdout.write(`\nprofiles in ${out} (open them in Chrome DevTools > Performance)\n`);
}

void main();
