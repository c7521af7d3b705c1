/**
 * Profiles the synthesis of the benchmark fleet (bench/fleet.ts) with the V8 profiler,
 * building the app and synthesizing it, modules already loaded, and prints the functions
 * with the most self time and the share of each file group (fleetform's constructs, its
 * domain, cdktf, constructs, zod, the runtime).
 * Usage: `node --import tsx bench/synth-profile.ts [SIZE] [--out FILE.cpuprofile] [--top N]`.
 */
import * as fs from 'node:fs';
import { Session as Inspector } from 'node:inspector/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { synthFleet } from './fleet';
import { topSelfTime, type CpuProfile } from './profile-summary';
import { runMain } from './stats';

/** Self time per group of files, largest first, as `percent  group` lines. */
function selfTimeByGroup(profile: CpuProfile): string {
  const total = profile.nodes.reduce((n, x) => n + (x.hitCount ?? 0), 0) || 1;
  const groups = new Map<string, number>();
  for (const node of profile.nodes) {
    const url = node.callFrame.url;
    const group =
      /\/src\/(constructs|domain)\//.exec(url)?.[0] ??
      /node_modules\/(cdktf|constructs|zod)\//.exec(url)?.[0] ??
      (url === '' ? `(${node.callFrame.functionName || 'native'})` : url.startsWith('node:') ? 'node:*' : 'other');
    groups.set(group, (groups.get(group) ?? 0) + (node.hitCount ?? 0));
  }
  return [...groups.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([g, n]) => `${((100 * n) / total).toFixed(1).padStart(5)}%  ${g}`)
    .join('\n');
}

async function main(): Promise<void> {
  const size = Number(process.argv[2] ?? 1000);
  const o = process.argv.indexOf('--out');
  const t = process.argv.indexOf('--top');
  const top = t > 0 ? Number(process.argv[t + 1]) : 30;
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-synth-profile-'));
  const inspector = new Inspector();
  inspector.connect();
  try {
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.setSamplingInterval', { interval: 200 });
    await inspector.post('Profiler.start');
    synthFleet(outdir, size);
    const { profile } = (await inspector.post('Profiler.stop')) as { profile: CpuProfile };
    if (o > 0) fs.writeFileSync(process.argv[o + 1] as string, JSON.stringify(profile));
    process.stdout.write(`by group:\n${selfTimeByGroup(profile)}\n\ntop self time:\n${topSelfTime(profile, top)}\n`);
  } finally {
    inspector.disconnect();
    fs.rmSync(outdir, { recursive: true, force: true });
  }
}

runMain(main);
