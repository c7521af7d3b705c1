/**
 * The example fleet as a user runs it: a copy of the project's app (main.ts, stacks/,
 * cdktf.json) in a scratch folder whose node_modules links to ours and to this package,
 * applied once, then `fleetform plan` with no changes timed as a whole process, beside a
 * bare `node -e 0`. Each plan reports its phases (FLEETFORM_TIMINGS=1). Prints one JSON line.
 * Usage: cli-run.ts [--runs N]
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { median, r3, runMain } from './stats';

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'fleetform.js');

/** A scratch copy of the example app that resolves `fleetform` to this checkout. */
function exampleApp(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-cli-'));
  for (const entry of ['main.ts', 'stacks', 'cdktf.json', 'tsconfig.json'])
    fs.cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true });
  const modules = path.join(dir, 'node_modules');
  fs.mkdirSync(modules);
  for (const entry of fs.readdirSync(path.join(ROOT, 'node_modules')))
    fs.symlinkSync(path.join(ROOT, 'node_modules', entry), path.join(modules, entry));
  fs.symlinkSync(ROOT, path.join(modules, 'fleetform'));
  return dir;
}

function run(cwd: string, args: readonly string[]): { seconds: number; stderr: string } {
  const started = performance.now();
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, FLEETFORM_TIMINGS: '1', FLEETFORM_ENDPOINT: '' },
  });
  const seconds = (performance.now() - started) / 1000;
  if (r.status !== 0) throw new Error(`fleetform ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { seconds, stderr: r.stderr };
}

function timings(stderr: string): Record<string, number> {
  const line = stderr.split('\n').find((l) => l.startsWith('fleetform-timings '));
  if (!line) throw new Error(`no timings in: ${stderr}`);
  return JSON.parse(line.slice('fleetform-timings '.length)) as Record<string, number>;
}

async function main(): Promise<void> {
  const i = process.argv.indexOf('--runs');
  const runs = i > 0 ? Number(process.argv[i + 1]) : 7;
  const dir = exampleApp();
  try {
    run(dir, ['apply', '--auto-approve']);
    const plans = Array.from({ length: runs }, () => run(dir, ['plan', '--detailed-exitcode']));
    const nodeStarts = Array.from({ length: runs }, () => {
      const started = performance.now();
      spawnSync(process.execPath, ['-e', '0']);
      return (performance.now() - started) / 1000;
    });
    const phases = plans.map((p) => timings(p.stderr));
    const phaseMedians = Object.fromEntries(Object.keys(phases[0] ?? {}).map((k) => [k, r3(median(phases.map((p) => p[k] ?? 0)))]));
    process.stdout.write(
      `${JSON.stringify({ example_plan_s: r3(median(plans.map((p) => p.seconds))), node_start_s: r3(median(nodeStarts)), runs, phases: phaseMedians })}\n`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
