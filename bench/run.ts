/**
 * `npm run bench [-- --quick] [-- --sizes 100,1000] [-- --parallelism N]`: measures each fleet
 * size in its own process, then training-job listing in a 100,000-job organization; prints
 * one table and writes bench/results.json.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createServiceClient } from '../src/api/client';
import { spawnEmulator } from './emulator';
import { measureHostile } from './hostile';
import { insertJobs, measureListJobs } from './jobs';
import { r3, timed } from './stats';
import { formatDetails, formatLatency, formatTable, type Row } from './table';

const JOBS = 100_000;

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** Runs a bench script in a process of its own and parses the JSON line it ends with. */
function runChild<T>(script: string, args: readonly string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, script), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${script} ${args.join(' ')} failed (exit ${code})`));
      resolve(JSON.parse(out.trim().split('\n').pop() as string) as T);
    });
  });
}

function runSize(size: number, extra: readonly string[]): Promise<{ row: Row; details: Record<string, unknown> }> {
  return runChild('size-run.ts', [String(size), ...extra]);
}

async function listJobs(runs: number): Promise<Record<string, unknown>> {
  const emu = await spawnEmulator();
  const { apiKeyId, apiKey, organizationId, datasetId } = emu.credentials;
  const client = await createServiceClient({ serviceHost: emu.url, credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey } });
  try {
    const insertS = await timed(() => insertJobs(emu.dataDir, organizationId, datasetId, JOBS));
    return { jobs: JOBS, insert_s: r3(insertS), runs, by_status: await measureListJobs(client, organizationId, runs) };
  } finally {
    client.close();
    await emu.stop();
  }
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const sizes = (option('--sizes') ?? (quick ? '100,1000' : '100,1000,10000')).split(',').map(Number);
  const extra = [
    ...(option('--parallelism') ? ['--parallelism', option('--parallelism') as string] : []),
    ...(option('--runs') ? ['--runs', option('--runs') as string] : []),
    ...(quick ? ['--quick'] : []),
  ];
  const rows: Row[] = [];
  const details: Record<string, unknown>[] = [];
  for (const size of sizes) {
    process.stderr.write(`measuring ${size} machines...\n`);
    const runs = option('--runs') ?? (quick ? (size >= 1000 ? '2' : '3') : undefined);
    const r = await runSize(size, [...extra, ...(runs && !option('--runs') ? ['--runs', runs] : [])]);
    rows.push(r.row);
    details.push(r.details);
  }
  const latency: Record<string, unknown>[] = [];
  for (const size of sizes) {
    process.stderr.write(`measuring ${size} machines at a distance...\n`);
    latency.push(...(await runChild<Record<string, unknown>[]>('latency-run.ts', [String(size), ...(option('--parallelism') ? ['--parallelism', option('--parallelism') as string] : [])])));
  }
  process.stderr.write('timing the example plan as a command...\n');
  const cli = await runChild<Record<string, unknown>>('cli-run.ts', ['--runs', quick ? '5' : '9']);
  process.stderr.write(`listing training jobs among ${JOBS}...\n`);
  const list_jobs = await listJobs(quick ? 1 : 3);
  process.stderr.write('sending hostile requests to the emulator...\n');
  const hostile = await measureHostile();
  process.stdout.write(`${formatTable(rows)}\n\n`);
  process.stdout.write(`${formatDetails(details)}\n\n`);
  process.stdout.write(`at a distance (plan reads follow the network up to 64 in flight; writes at the engine's parallelism):\n${formatLatency(latency)}\n\n`);
  process.stdout.write(`example plan with no changes: ${String(cli.example_plan_s)} s (bare node start ${String(cli.node_start_s)} s); phases ${JSON.stringify(cli.phases)}\n\n`);
  process.stdout.write(`list training jobs (${JOBS} in the organization, median of ${String(list_jobs.runs)}):\n`);
  for (const [status, v] of Object.entries(list_jobs.by_status as Record<string, { seconds: number; jobs: number }>)) {
    process.stdout.write(`  ${status.padEnd(28)} ${String(v.jobs).padStart(6)} jobs  ${v.seconds.toFixed(3)} s\n`);
  }
  process.stdout.write(`\nhostile requests (refusal time, emulator peak memory): ${JSON.stringify(hostile)}\n`);
  const file = path.join(__dirname, 'results.json');
  fs.writeFileSync(file, `${JSON.stringify({ rows, latency, cli, list_jobs, details, hostile }, null, 2)}\n`);
  process.stdout.write(`\nwritten ${path.relative(process.cwd(), file)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
