/**
 * The reconciler's peak memory over full plans: `reconcile-memory-run.ts SIZE [--serve]`.
 * Sets SIZE machines up on an emulator of its own (a child process) with an apply in a
 * process of its own, then runs the reconciler in a third process
 * (reconcile-memory-child.ts: two full plans, the first cycle's and a heal's) and prints
 * its line with `machines` added. The app's synthesis runs in this process, as the
 * reconciler reads a revision's synthesized stacks and synthesizes nothing itself.
 * `--serve`: after the setup, runs the reconciler's process once per line read on stdin,
 * the line's words given to node (e.g. `--max-old-space-size=300`), until stdin ends.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { spawnEmulator } from './emulator';
import { synthFleet } from './fleet';
import { runMain } from './stats';

function measure(session: string, outdir: string, nodeArgs: readonly string[], size: number): string {
  const out = execFileSync(
    process.execPath,
    [...nodeArgs, '--import', 'tsx', path.join(__dirname, 'reconcile-memory-child.ts'), session, outdir],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20 },
  );
  const line = JSON.parse(out.trim().split('\n').pop() as string) as Record<string, unknown>;
  return JSON.stringify({ machines: size, ...line });
}

async function main(): Promise<void> {
  const size = Number(process.argv[2] ?? '10000');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-bench-reconcile-memory-'));
  const outdir = path.join(dir, 'cdktf.out');
  const emulator = await spawnEmulator();
  try {
    process.stderr.write(`  applying ${size} machines...\n`);
    synthFleet(outdir, size);
    const session = path.join(dir, 'session.json');
    fs.writeFileSync(
      session,
      JSON.stringify({ url: emulator.url, credentials: emulator.credentials, stateDir: path.join(dir, 'state'), parallelism: 10 }),
      { mode: 0o600 },
    );
    execFileSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'engine-child.ts'), session, outdir], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (!process.argv.includes('--serve')) {
      process.stdout.write(`${measure(session, outdir, [], size)}\n`);
      return;
    }
    process.stderr.write('  ready: one line of node options per run\n');
    for await (const line of createInterface({ input: process.stdin })) {
      try {
        process.stdout.write(`${measure(session, outdir, line.split(/\s+/).filter(Boolean), size)}\n`);
      } catch (err) {
        process.stdout.write(`${JSON.stringify({ failed: String(err) })}\n`);
      }
    }
  } finally {
    await emulator.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
