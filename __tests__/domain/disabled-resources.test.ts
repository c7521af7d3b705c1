/** `disabled: true` on a component or service: kept in the config, not built by the machine, typed from code to adoption. */
import { MachineConfigSchema, validateMachineConfig } from '../../src/domain';
import { Component, Machine, ModularResource, Module, Service } from '../../src/constructs';
import { machineConfigCode } from '../../src/engine/adopt/machine-code';
import { planAdoption } from '../../src/engine/adopt/adoption';
import { renderAdoption } from '../../src/engine/adopt/render';
import { runStandalone } from '../../src/emulator/sim/run-config';
import { machineConfig, newStack, synth } from '../constructs/helpers';

const config = (disabled: unknown) => ({
  components: [
    { name: 'board-1', api: 'rdk:component:board', model: 'fake', disabled },
    { name: 'cam', api: 'rdk:component:camera', model: 'fake', depends_on: ['board-1'] },
  ],
  services: [{ name: 'dm', api: 'rdk:service:data_manager', model: 'builtin', disabled: false }],
});

describe('disabled on resource entries', () => {
  test('the schema takes a boolean and validation has nothing to say of it', () => {
    expect(MachineConfigSchema.safeParse(config(true)).success).toBe(true);
    const r = validateMachineConfig(config(false));
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
  });

  test('a value other than a boolean is refused at its path', () => {
    const r = validateMachineConfig(config('yes'));
    expect(r.errors.map((e) => e.path)).toEqual(['components[0].disabled']);
  });

  test('depending on a disabled resource is a warning naming both, not an error', () => {
    const r = validateMachineConfig(config(true));
    expect(r.errors).toEqual([]);
    expect(r.warnings.map((w) => ({ code: w.code, path: w.path }))).toEqual([
      { code: 'depends-on-disabled', path: 'components[1].depends_on[0]' },
    ]);
    expect(r.warnings[0]?.message).toContain('"board-1", which is disabled');
  });

  test('a disabled resource depending on a disabled one is not warned of', () => {
    const c = config(true);
    (c.components[1] as Record<string, unknown>).disabled = true;
    expect(validateMachineConfig(c).warnings).toEqual([]);
  });

  test('Component, Service and ModularResource write disabled when given, and only then', () => {
    const { stack } = newStack();
    const machine = new Machine(stack, 'm');
    const sensors = new Module(machine, 'sensors', { moduleId: 'acme:sensors', version: '~1.2' });
    new Component(machine, 'cam', { api: 'rdk:component:camera', model: 'webcam', disabled: true });
    new Component(machine, 'board', { api: 'rdk:component:board', model: 'fake' });
    new Service(machine, 'nav', { api: 'rdk:service:navigation', disabled: false });
    new ModularResource(machine, 'sensor', { api: 'rdk:component:sensor', model: sensors.model('hc-sr04'), disabled: true });
    const written = machineConfig(synth(stack), 'm') as { components: Record<string, unknown>[]; services: Record<string, unknown>[] };
    expect(written.components.map((c) => [c.name, c.disabled])).toEqual([
      ['cam', true],
      ['board', undefined],
      ['sensor', true],
    ]);
    expect(written.components[1]).not.toHaveProperty('disabled');
    expect(written.services[0]?.disabled).toBe(false);
  });

  test('adoption declares a stored disabled as the prop, not as an override', () => {
    const made = machineConfigCode(config(true), 'ARM');
    if (!made.ok) throw new Error(made.reason);
    const board = made.code.resources.find((r) => r.name === 'board-1');
    expect(board?.disabled).toBe(true);
    expect(board?.overrides).toEqual([]);
    const location = { id: 'loc', name: 'site', parentLocationId: '', organizationId: 'org' };
    const part = { id: 'p', name: 'arm-main', machineId: 'arm', locationId: 'loc', mainPart: true, config: config(true) };
    const adoption = planAdoption(
      {
        organizationId: 'org',
        locations: [location],
        machines: [{ id: 'arm', name: 'arm', locationId: 'loc', parts: [part] }],
        fragments: [],
        datasets: [],
        jobs: [],
      },
      { managed: new Map() },
    );
    const code = renderAdoption(adoption, { className: 'AdoptedStack', cdk: 'cdktf' });
    expect(code).toMatch(/new Component\([^;]*'board-1'[^;]*disabled: true/);
    expect(code).not.toContain('addConfigOverride');
  });

  test('the simulated machine builds every resource but the disabled one', () => {
    const { run } = runStandalone(config(true));
    expect(run.resources.map((r) => r.name)).toEqual(['cam', 'dm']);
    const { run: enabled } = runStandalone(config(false));
    expect(enabled.resources.map((r) => r.name)).toEqual(['board-1', 'cam', 'dm']);
  });
});
