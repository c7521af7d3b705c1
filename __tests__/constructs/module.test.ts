import { Testing } from 'cdktf';
import { FleetformError } from '../../src/domain/errors';
import { Machine, ModularResource, Module, Secret } from '../../src/constructs';
import { errorsOf, issueAt, machineConfig, newStack, resourceOf, synth, warningsOf } from './helpers';

describe('Module', () => {
  test('is a registry module by default, named by the <namespace>_<module-name> convention', () => {
    const { stack } = newStack();
    const m = new Machine(stack, 'm');
    const sensors = new Module(m, 'sensors', { moduleId: 'acme:sensors', version: '1.2.3' });
    expect(sensors.type).toBe('registry');
    expect(sensors.name).toBe('acme_sensors');
    expect(machineConfig(synth(stack), 'm').modules).toEqual([
      { type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '1.2.3' },
    ]);
  });

  test.each([
    ['1.2.3', '1.2.3'],
    ['2.0.0-rc.1', '2.0.0-rc.1'],
    ['~1.2', '~1.2'],
    ['1.2.*', '~1.2'],
    ['^1', '^1'],
    ['1.*', '^1'],
    ['latest', 'latest'],
    ['latest-with-prerelease', 'latest-with-prerelease'],
  ])('version %s is written in its stored form %s', (given, stored) => {
    const { stack } = newStack();
    const m = new Machine(stack, 'm');
    const mod = new Module(m, 'sensors', { moduleId: 'acme:sensors', version: given });
    expect(mod.version).toBe(stored);
    expect(mod.versionPolicy).toBeDefined();
    expect(machineConfig(synth(stack), 'm').modules[0]?.version).toBe(stored);
  });

  test('without a version the module is written unpinned: the engine pins it at first apply', () => {
    const { app, stack } = newStack();
    const m = new Machine(stack, 'm');
    new Module(m, 'arm', { moduleId: 'acme:arm-control' });
    expect(errorsOf(app)).toEqual([]);
    expect(machineConfig(synth(stack), 'm').modules).toEqual([
      { type: 'registry', name: 'acme_arm-control', module_id: 'acme:arm-control' },
    ]);
  });

  test('an invalid version is an error in code listing the accepted forms and how to acknowledge it; acknowledged, synth goes on', () => {
    const { app, stack } = newStack('s');
    const m = new Machine(stack, 'm');
    new Module(m, 'sensors', { moduleId: 'acme:sensors', version: '>=1.2' });
    const issue = issueAt(app, 's/m/sensors', 'version');
    expect(issue.code).toBe('module-version');
    expect(issue.severity).toBe('error');
    expect(issue.hint).toMatch(/~X\.Y/);
    expect(issue.hint).toContain(`acknowledged: [{ code: 'module-version', path: "modules.acme_sensors.version"`);
    m.acknowledge({ code: 'module-version', path: 'modules.acme_sensors.version', reason: 'pinned by hand on the machine' });
    expect(errorsOf(app)).toEqual([]);
    expect(issueAt(app, 's/m/sensors', 'version').message).toMatch(/\(acknowledged: pinned by hand on the machine\)$/);
    expect(() => Testing.synth(stack, true)).not.toThrow();
  });

  test('a local module has an executable path and may omit the module id', () => {
    const { app, stack } = newStack();
    const m = new Machine(stack, 'm');
    const local = new Module(m, 'driver', { executablePath: '/opt/driver/bin/run' });
    expect(local.type).toBe('local');
    expect(local.name).toBe('driver');
    expect(errorsOf(app)).toEqual([]);
    expect(machineConfig(synth(stack), 'm').modules).toEqual([{ type: 'local', name: 'driver', executable_path: '/opt/driver/bin/run' }]);
  });

  test('model(name) returns the full triplet; without a module id it throws', () => {
    const { stack } = newStack();
    const m = new Machine(stack, 'm');
    expect(new Module(m, 'sensors', { moduleId: 'acme:sensors' }).model('hc-sr04')).toBe('acme:sensors:hc-sr04');
    const local = new Module(m, 'driver', { executablePath: '/opt/driver' });
    expect(() => local.model('x')).toThrow(FleetformError);
  });

  test('env keeps ${environment.NAME} placeholders literally', () => {
    const { stack } = newStack();
    const m = new Machine(stack, 'm');
    new Module(m, 'sensors', { moduleId: 'acme:sensors', version: '~1.2', env: { PATH: '/opt/acme/bin:${environment.PATH}' } });
    const doc = synth(stack);
    expect(machineConfig(doc, 'm').modules[0]?.env).toEqual({ PATH: '/opt/acme/bin:${environment.PATH}' });
    // Written escaped, so Terraform does not try to interpolate it.
    expect(resourceOf(doc, 'fleetform_machine', 'm').config).toContain('"PATH":"/opt/acme/bin:$${environment.PATH}"');
  });

  test('sensitiveEnv and secret-looking env keys are synthesized in secret_env, not in config; the module gets them all', () => {
    const { stack } = newStack();
    const m = new Machine(stack, 'm');
    const mod = new Module(m, 'sensors', {
      moduleId: 'acme:sensors',
      version: '~1.2',
      // A value wholly an environment placeholder is no secret, whatever its name: it stays in config.
      env: { LOG_LEVEL: 'debug', ACME_API_KEY: Secret.plainText('k3y'), ACME_TOKEN: '${environment.ACME_TOKEN}' },
      sensitiveEnv: { PAIRING_CODE: Secret.plainText('c0de') },
    });
    new Module(m, 'vision', { moduleId: 'acme:vision', version: '1.0.1', sensitiveEnv: { LICENSE: Secret.plainText('abc') } });
    expect(mod.sensitiveEnvKeys).toEqual(['ACME_API_KEY', 'PAIRING_CODE']);
    const doc = synth(stack);
    const machine = resourceOf(doc, 'fleetform_machine', 'm');
    expect(machine.secret_env).toEqual({
      'acme_sensors.ACME_API_KEY': 'k3y',
      'acme_sensors.PAIRING_CODE': 'c0de',
      'acme_vision.LICENSE': 'abc',
    });
    expect(Object.keys(machine.secret_env as object)).toEqual([
      'acme_sensors.ACME_API_KEY',
      'acme_sensors.PAIRING_CODE',
      'acme_vision.LICENSE',
    ]);
    expect(machine).not.toHaveProperty('sensitive_env');
    expect(machine.config as string).not.toMatch(/k3y|c0de|abc|ACME_API_KEY|PAIRING_CODE|LICENSE/);
    expect(machineConfig(doc, 'm').modules).toEqual([
      {
        type: 'registry',
        name: 'acme_sensors',
        module_id: 'acme:sensors',
        version: '~1.2',
        env: { LOG_LEVEL: 'debug', ACME_TOKEN: '${environment.ACME_TOKEN}' },
      },
      { type: 'registry', name: 'acme_vision', module_id: 'acme:vision', version: '1.0.1' },
    ]);
    // What the machine's part gets: every entry, secrets included.
    expect(m.toMachineConfig().modules?.[0]?.env).toEqual({
      LOG_LEVEL: 'debug',
      ACME_API_KEY: 'k3y',
      ACME_TOKEN: '${environment.ACME_TOKEN}',
      PAIRING_CODE: 'c0de',
    });
  });

  test('a secret given as text is an error at synth naming the field and the references to use; placeholders, references and Secret.plainText pass', () => {
    const { app, stack } = newStack('s');
    const m = new Machine(stack, 'm');
    new Module(m, 'sensors', {
      moduleId: 'acme:sensors',
      version: '~1.2',
      env: { LOG_LEVEL: 'debug', ACME_API_KEY: 'in-clear-1', DB_PASSWORD: '${environment.DB_PASSWORD}', EMPTY_TOKEN: '' },
      sensitiveEnv: {
        PAIRING_CODE: 'in-clear-2',
        CERT: Secret.fromFile('/run/secrets/cert'),
        LICENSE: Secret.plainText('acknowledged'),
        SEED: Secret.fromEnv('SEED'),
      },
    });
    expect(errorsOf(app)).toEqual([
      's/m/sensors env.ACME_API_KEY plain-text-secret',
      's/m/sensors sensitiveEnv.PAIRING_CODE plain-text-secret',
    ]);
    const issue = issueAt(app, 's/m/sensors', 'sensitiveEnv.PAIRING_CODE');
    expect(issue?.message).toBe('PAIRING_CODE is a secret given as text: it would be written in clear to the synthesized stack');
    expect(issue?.hint).toMatch(/Secret\.fromEnv\("NAME"\) or Secret\.fromFile\("\/path"\).*Secret\.plainText\(value\)/);
  });

  test('a key in both env and sensitiveEnv is an error on the sensitiveEnv field', () => {
    const { app, stack } = newStack('s');
    const m = new Machine(stack, 'm');
    new Module(m, 'sensors', {
      moduleId: 'acme:sensors',
      version: '~1.2',
      env: { TOKEN: Secret.plainText('a') },
      sensitiveEnv: { TOKEN: Secret.plainText('b') },
    });
    expect(errorsOf(app)).toEqual(['s/m/sensors sensitiveEnv.TOKEN duplicate-env']);
  });

  test('an invalid placeholder is an error naming the env entry it is in', () => {
    const { app, stack } = newStack('s');
    const m = new Machine(stack, 'm');
    new Module(m, 'sensors', {
      moduleId: 'acme:sensors',
      version: '~1.2',
      env: { HOME_DIR: '${env.HOME}' },
      sensitiveEnv: { SECRET: Secret.plainText('${secret}') },
    });
    expect(errorsOf(app)).toEqual(['s/m/sensors env.HOME_DIR placeholder', 's/m/sensors sensitiveEnv.SECRET placeholder']);
  });

  test('module names: invalid and duplicate names are errors in code (the module certainly fails)', () => {
    const { app, stack } = newStack('s');
    const m = new Machine(stack, 'm');
    new Module(m, 'one', { moduleId: 'acme:sensors', version: '~1.2' });
    new Module(m, 'two', { moduleId: 'acme:vision', version: '1.0.0', name: 'acme_sensors' });
    new Module(m, 'three', { moduleId: 'acme:arm-control', version: '3.1.0', name: 'bad name' });
    expect(errorsOf(app)).toEqual(expect.arrayContaining(['s/m/two name duplicate-module-name', 's/m/three name module-name']));
  });

  test('a registry module without a module id is an error in code: it will not start', () => {
    const { app, stack } = newStack('s');
    const m = new Machine(stack, 'm');
    new Module(m, 'nameless', { version: '1.0.0' });
    expect(errorsOf(app)).toEqual(['s/m/nameless moduleId required']);
  });

  test('breaking the naming convention is a warning: printed as an annotation, synth succeeds', () => {
    const { app, stack } = newStack('s');
    const m = new Machine(stack, 'm');
    const mod = new Module(m, 'sensors', { moduleId: 'acme:sensors', version: '~1.2', name: 'my-sensors' });
    expect(errorsOf(app)).toEqual([]);
    expect(warningsOf(app)).toEqual(['s/m/sensors name module-naming-convention']);
    Testing.synth(stack, true);
    Testing.synth(stack, true);
    const warnings = mod.node.metadata.filter((e) => e.type === '@cdktf/warn').map((e) => e.data);
    expect(warnings).toEqual([
      'name: module name "my-sensors" does not follow the convention <namespace>_<module-name> (hint: name it "acme_sensors")',
    ]);
  });

  test('models of a local module without module id only warn when their prefix matches no module', () => {
    const { app, stack } = newStack('s');
    const m = new Machine(stack, 'm');
    new Module(m, 'driver', { executablePath: '/opt/driver' });
    new ModularResource(m, 'gripper', { api: 'rdk:component:gripper', model: 'me:driver:soft' });
    expect(errorsOf(app)).toEqual([]);
    expect(warningsOf(app)).toEqual(['s/m/gripper model model-module-mismatch']);
  });
});
