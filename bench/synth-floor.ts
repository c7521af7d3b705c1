/**
 * What cdktf alone costs to synthesize a tree the size of the benchmark fleet: one plain
 * resource per machine, its attributes computed before synthesis (those fleetform's
 * `Machine` writes), with 15 empty constructs under it where the machine has its 5 modules
 * and 10 modular resources. No fleetform code runs during the timed synthesis: its time
 * and memory are the floor under `synth_s` and `synth_peak_mb`.
 * `--checked` adds, inside the timed synthesis, the domain's validation of each machine's
 * config (read from its JSON before the clock starts): what a synth that checks every
 * config before it writes it cannot do without.
 * Usage: synth-floor.ts SIZE [--runs N] [--no-children] [--checked] [--from OUTDIR]; `--from` takes the
 * attributes from a synth of the fleet already in OUTDIR (else it synthesizes one in a
 * child process first, untimed); prints one JSON line
 * `{ size, children, seconds: number[], cpu_seconds: number[], peak_rss_mb }` (the peak
 * includes the attributes read back, about what the machines' own JSON takes; CPU seconds
 * as synth-child.ts counts them).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, TerraformResource, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { FLEET_STACK } from './fleet';
import { synthInChild } from './session';
import { cpuSecondsSince, runMain, timed } from './stats';

const PARTS_PER_MACHINE = 15;

class PlainMachine extends TerraformResource {
  constructor(
    scope: Construct,
    id: string,
    private readonly attributes: Record<string, unknown>,
  ) {
    super(scope, id, { terraformResourceType: 'fleetform_machine' });
  }

  protected override synthesizeAttributes(): Record<string, unknown> {
    return this.attributes;
  }
}

/** The machines' attributes in a synthesized fleet's stack. */
function attributesIn(outdir: string): Record<string, Record<string, unknown>> {
  const doc = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', FLEET_STACK, 'cdk.tf.json'), 'utf8')) as {
    resource: { fleetform_machine: Record<string, Record<string, unknown>> };
  };
  return doc.resource.fleetform_machine;
}

/** The machines' attributes as fleetform synthesizes them, read back from a synth in a child process. */
function fleetAttributes(size: number): Record<string, Record<string, unknown>> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-synth-floor-'));
  try {
    synthInChild(out, size, 0);
    return attributesIn(out);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const size = Number(process.argv[2] ?? 10000);
  const i = process.argv.indexOf('--runs');
  const runs = i > 0 ? Number(process.argv[i + 1]) : 1;
  const children = !process.argv.includes('--no-children');
  const from = process.argv.indexOf('--from');
  const machines = Object.entries(from > 0 ? attributesIn(process.argv[from + 1] as string) : fleetAttributes(size));
  if (machines.length !== size) throw new Error(`found ${machines.length} machines to synthesize, expected ${size}`);
  // Loaded only when asked for: the plain floor loads nothing of fleetform.
  const validate = process.argv.includes('--checked') ? (await import('../src/domain')).validateMachineConfig : undefined;
  const seconds: number[] = [];
  const cpuSeconds: number[] = [];
  for (let r = 0; r < runs; r++) {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-synth-floor-'));
    // Read before the clock starts, anew each run: the checks see objects never walked before.
    const configs = validate ? machines.map(([, attributes]) => JSON.parse(attributes.config as string) as unknown) : [];
    const cpu = process.cpuUsage();
    // Timed as synth_s is: building the app and synthesizing it.
    seconds.push(
      await timed(() => {
        const app = new App({ outdir });
        const stack = new TerraformStack(app, FLEET_STACK);
        for (const config of configs) {
          const result = validate?.(config, { allowUnpinnedModules: true });
          if (result && result.errors.length > 0) throw new Error(`the benchmark fleet's config is invalid: ${result.errors[0]?.message}`);
        }
        for (const [id, { '//': _metadata, ...attributes }] of machines) {
          const machine = new PlainMachine(stack, id, attributes);
          if (children) for (let p = 0; p < PARTS_PER_MACHINE; p++) new Construct(machine, `part-${p}`);
        }
        app.synth();
      }),
    );
    cpuSeconds.push(cpuSecondsSince(cpu));
    fs.rmSync(outdir, { recursive: true, force: true });
  }
  process.stdout.write(
    `${JSON.stringify({ size, children, checked: validate !== undefined, seconds, cpu_seconds: cpuSeconds, peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024) })}\n`,
  );
}

runMain(main);
