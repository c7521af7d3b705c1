/**
 * Synth against its floor alone, without the rest of a size run: `synth-to-floor.ts SIZE
 * [--runs N]` synthesizes the fleet (synth-child.ts) and then has cdktf alone synthesize the
 * same tree (synth-floor.ts), each in a process of its own as the size runs do, N times
 * (5 by default), and prints one JSON line with the medians of both (seconds, CPU seconds,
 * peak RSS) and of their ratios per pair, the floor taken right after its synth so that
 * the two share the machine's moment. The goal is at most 1.25 in time and memory.
 * `synth_unchecked_*`: the same synth in an app made with `skipValidation` (no validation:
 * neither fleetform's config checks nor cdktf's own), and `synth_checked_floor_*`: the
 * floor with the domain's validation of each machine's config inside its timed synthesis
 * (synth-floor.ts --checked), both taken in the same turn.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { synthFloorInChild, synthInChild } from './session';
import { median, r3, runMain } from './stats';

async function main(): Promise<void> {
  const size = Number(process.argv[2] ?? 1000);
  const i = process.argv.indexOf('--runs');
  const runs = i > 0 ? Number(process.argv[i + 1]) : 5;
  const synth = { seconds: [] as number[], cpu: [] as number[], mb: [] as number[] };
  const floor = { seconds: [] as number[], cpu: [] as number[], mb: [] as number[] };
  const unchecked = { seconds: [] as number[], cpu: [] as number[], mb: [] as number[] };
  const ratios = { seconds: [] as number[], cpu: [] as number[], mb: [] as number[] };
  const uncheckedRatios: number[] = [];
  const checkedFloor: number[] = [];
  const toCheckedFloor: number[] = [];
  for (let r = 0; r < runs; r++) {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-synth-to-floor-'));
    try {
      const ours = synthInChild(out, size, 0);
      const cdktf = synthFloorInChild(out, size);
      const bare = synthInChild(fs.mkdtempSync(path.join(out, 'unchecked-')), size, 0, 1, true);
      uncheckedRatios.push((bare.seconds[0] as number) / (cdktf.seconds[0] as number));
      const withChecks = synthFloorInChild(out, size, true);
      checkedFloor.push(withChecks.seconds[0] as number);
      toCheckedFloor.push((ours.seconds[0] as number) / (withChecks.seconds[0] as number));
      for (const [into, run] of [
        [synth, ours],
        [floor, cdktf],
        [unchecked, bare],
      ] as const) {
        into.seconds.push(run.seconds[0] as number);
        into.cpu.push(run.cpu_seconds[0] as number);
        into.mb.push(run.peak_rss_mb);
      }
      ratios.seconds.push((ours.seconds[0] as number) / (cdktf.seconds[0] as number));
      ratios.cpu.push((ours.cpu_seconds[0] as number) / (cdktf.cpu_seconds[0] as number));
      ratios.mb.push(ours.peak_rss_mb / cdktf.peak_rss_mb);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  }
  const row = {
    size,
    runs,
    synth_s: r3(median(synth.seconds)),
    synth_floor_s: r3(median(floor.seconds)),
    synth_to_floor: r3(median(ratios.seconds)),
    synth_cpu_s: r3(median(synth.cpu)),
    synth_floor_cpu_s: r3(median(floor.cpu)),
    synth_cpu_to_floor: r3(median(ratios.cpu)),
    synth_unchecked_s: r3(median(unchecked.seconds)),
    synth_unchecked_to_floor: r3(median(uncheckedRatios)),
    synth_checked_floor_s: r3(median(checkedFloor)),
    synth_to_checked_floor: r3(median(toCheckedFloor)),
    synth_peak_mb: median(synth.mb),
    synth_floor_peak_mb: median(floor.mb),
    synth_mb_to_floor: r3(median(ratios.mb)),
  };
  process.stdout.write(`${JSON.stringify(row)}\n`);
}

runMain(main);
