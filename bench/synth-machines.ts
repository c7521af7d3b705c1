/**
 * Synth time of large fleets, for choosing (and re-checking) the machine encoding.
 *
 *   node --require tsx/cjs bench/synth-machines.ts [count ...]     (default: 1000 10000)
 *
 * Each measurement runs in a fresh process: N machines, each with the example's sensor
 * rig (one registry module with env, three components with attributes and depends_on),
 * synthesized with `app.synth()` (validation included) into a temporary folder. Two
 * encodings of the machine config are compared: `compact` (what Machine writes: the
 * config as one JSON string attribute) and `nested` (the same document as nested
 * Terraform attributes, which CDKTF's token resolution walks value by value).
 * Not part of the tests: timings depend on the machine.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { FleetProvider, Machine, ModularResource, Module } from '../src/constructs';

type Encoding = 'compact' | 'nested';

/** A Machine writing its config as nested attributes instead of one JSON string. */
class NestedMachine extends Machine {
  protected override synthesizeAttributes(): Record<string, unknown> {
    const attributes = super.synthesizeAttributes();
    return { ...attributes, config: JSON.parse(attributes.config as string) as unknown };
  }
}

function rig(machine: Machine, i: number): void {
  const sensors = new Module(machine, 'sensors', {
    moduleId: 'acme:sensors',
    version: '~1.2',
    env: { PATH: '/opt/acme/bin:${environment.PATH}' },
  });
  const board = new ModularResource(machine, 'board', { name: 'board-1', api: 'rdk:component:board', model: sensors.model('pi-board') });
  const ultrasonic = new ModularResource(machine, 'ultrasonic', {
    name: 'ultrasonic-1',
    api: 'rdk:component:sensor',
    model: sensors.model('hc-sr04'),
    attributes: { trigger_pin: String(11 + (i % 20)), echo_interrupt_pin: '13', board: 'board-1', timeout_ms: 150 },
    dependsOn: [board],
  });
  new ModularResource(machine, 'camera', {
    name: 'camera-1',
    api: 'rdk:component:camera',
    model: sensors.model('multi-cam'),
    attributes: { sensors: ['ultrasonic-1'] },
    dependsOn: [ultrasonic],
  });
}

interface Measurement {
  encoding: Encoding;
  machines: number;
  constructMs: number;
  synthMs: number;
  outputBytes: number;
  peakRssMb: number;
}

function measure(encoding: Encoding, count: number): Measurement {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-bench-'));
  try {
    const t0 = performance.now();
    const app = new App({ outdir });
    const stack: Construct = new TerraformStack(app, 'fleet');
    new FleetProvider(stack, 'cloud');
    const MachineClass = encoding === 'compact' ? Machine : NestedMachine;
    for (let i = 0; i < count; i++) rig(new MachineClass(stack, `machine-${i}`), i);
    const t1 = performance.now();
    app.synth();
    const t2 = performance.now();
    const outputBytes = fs.statSync(path.join(outdir, 'stacks', 'fleet', 'cdk.tf.json')).size;
    return {
      encoding,
      machines: count,
      constructMs: Math.round(t1 - t0),
      synthMs: Math.round(t2 - t1),
      outputBytes,
      peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    };
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
}

function main(): void {
  const [mode, ...rest] = process.argv.slice(2);
  if (mode === '--one') {
    process.stdout.write(`${JSON.stringify(measure(rest[0] as Encoding, Number(rest[1])))}\n`);
    return;
  }
  const counts = (mode === undefined ? ['1000', '10000'] : [mode, ...rest]).map(Number);
  const rows: Measurement[] = [];
  for (const count of counts) {
    for (const encoding of ['compact', 'nested'] as const) {
      const run = spawnSync(process.execPath, ['--require', 'tsx/cjs', __filename, '--one', encoding, String(count)], {
        encoding: 'utf8',
        maxBuffer: 1 << 20,
      });
      if (run.status !== 0) throw new Error(`measurement failed: ${run.stderr}`);
      rows.push(JSON.parse(run.stdout) as Measurement);
    }
  }
  process.stdout.write('machines  encoding  construct  synth+validate  output     peak RSS\n');
  for (const r of rows) {
    process.stdout.write(
      `${String(r.machines).padStart(8)}  ${r.encoding.padEnd(8)}  ${`${r.constructMs} ms`.padStart(9)}  ${`${r.synthMs} ms`.padStart(14)}  ${`${(r.outputBytes / 1e6).toFixed(1)} MB`.padStart(8)}  ${`${r.peakRssMb} MB`.padStart(9)}\n`,
    );
  }
}

main();
