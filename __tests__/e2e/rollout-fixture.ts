import * as path from 'node:path';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import { FleetProvider, Machine, ModularResource, Module, Rollout, type RolloutProps } from '../../src';

export interface RolloutFleetShape {
  readonly machines: number;
  /** Version policy of every machine's module. */
  readonly policy: string;
  /** The rollout; its canary wave names `canary` (a machine index) when given. */
  readonly rollout?: Omit<RolloutProps, 'waves'> & { readonly canary?: number; readonly waves: RolloutProps['waves'] };
}

/** Names of the fleet's machines: picker-1, picker-2, ... */
export function pickerNames(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `picker-${i + 1}`);
}

/** Synthesizes a fleet of machines running acme:sensors, with a rollout whose first wave is the canary when one is named. */
export function synthRolloutFleet(outdir: string, shape: RolloutFleetShape): void {
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(path.dirname(path.resolve(outdir)), 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  const machines = pickerNames(shape.machines).map((name) => {
    const machine = new Machine(stack, name, { name });
    const sensors = new Module(machine, 'sensors', { moduleId: 'acme:sensors', version: shape.policy });
    new ModularResource(machine, 'board', { name: 'board-1', api: 'rdk:component:board', model: sensors.model('pi-board') });
    return machine;
  });
  if (shape.rollout) {
    const { canary, waves, ...rest } = shape.rollout;
    const first = canary === undefined ? [] : [{ machines: [machines[canary] as Machine] }];
    new Rollout(stack, 'careful', { ...rest, waves: [...first, ...waves] });
  }
  app.synth();
}
