import * as path from 'node:path';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import { FleetProvider, Location, Machine, ModularResource, Module, Rollout, Secret, type RolloutProps } from '../../src';

/** The module secret every machine has: no page may show it. */
export const MODULE_SECRET = 'dashboard-Secret-5Tq8';

export interface DashboardFleetShape {
  readonly machines: number;
  readonly policy: string;
  /** The rollout, with machine `canary` (an index) as its first wave. */
  readonly rollout?: Omit<RolloutProps, 'waves'> & { readonly canary: number; readonly waves: RolloutProps['waves'] };
}

export function pickerNames(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `picker-${i + 1}`);
}

/** A fleet in two locations, each machine running acme:sensors with a secret env entry and a board. */
export function synthDashboardFleet(outdir: string, shape: DashboardFleetShape): void {
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(path.dirname(path.resolve(outdir)), 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  const sites = [new Location(stack, 'north', { name: 'north-hall' }), new Location(stack, 'south', { name: 'south-hall' })];
  const machines = pickerNames(shape.machines).map((name, i) => {
    const machine = new Machine(stack, name, { name, location: sites[i % 2] as Location });
    const sensors = new Module(machine, 'sensors', {
      moduleId: 'acme:sensors',
      version: shape.policy,
      sensitiveEnv: { API_TOKEN: Secret.plainText(MODULE_SECRET) },
    });
    new ModularResource(machine, 'board', { name: 'board-1', api: 'rdk:component:board', model: sensors.model('pi-board') });
    return machine;
  });
  if (shape.rollout) {
    const { canary, waves, ...rest } = shape.rollout;
    new Rollout(stack, 'careful', { ...rest, waves: [{ machines: [machines[canary] as Machine] }, ...waves] });
  }
  app.synth();
}
