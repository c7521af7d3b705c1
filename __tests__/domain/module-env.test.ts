import {
  isSecretEnvName,
  moduleEnvironment,
  MODULE_ENV_VARIABLES,
  NOT_AUTOMATIC_FOR_LOCAL_MODULES,
  type MachineIdentity,
  type ModuleConfig,
} from '../../src/domain';

const identity: MachineIdentity = {
  machineId: 'm-1',
  partId: 'p-1',
  locationId: 'loc-1',
  organizationId: 'org-1',
  apiKey: 'key-secret',
  apiKeyId: 'key-id',
  home: '/root/.viam',
  fqdn: 'robot-main.loc.viam.cloud',
};
const serverEnv = { PATH: '/usr/bin', HOME: '/root', LANG: 'C', GONE: undefined };
const registry: ModuleConfig = { type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '1.2.5' };
const local: ModuleConfig = { type: 'local', name: 'my_mod', executable_path: '/opt/my-mod/bin/run.sh' };

describe('moduleEnvironment', () => {
  test("registry module on a cloud-connected machine: the seed's 12 variables and the server environment", () => {
    const { env, missing } = moduleEnvironment(registry, serverEnv, identity);
    expect(missing).toEqual([]);
    expect(env).toEqual({
      PATH: '/usr/bin',
      HOME: '/root',
      LANG: 'C',
      VIAM_HOME: '/root/.viam',
      VIAM_MODULE_ROOT: '/root/.viam/packages/data/module/acme-sensors-1.2.5',
      VIAM_RESOURCE_CONFIGURATION_TIMEOUT: '1m0s',
      VIAM_MODULE_STARTUP_TIMEOUT: '5m0s',
      VIAM_MODULE_DATA: '/root/.viam/module-data/m-1/acme_sensors',
      VIAM_MODULE_ID: 'acme:sensors',
      VIAM_MODULE_NAME: 'acme_sensors',
      VIAM_API_KEY: 'key-secret',
      VIAM_API_KEY_ID: 'key-id',
      VIAM_MACHINE_PART_ID: 'p-1',
      VIAM_MACHINE_ID: 'm-1',
      VIAM_LOCATION_ID: 'loc-1',
      VIAM_PRIMARY_ORG_ID: 'org-1',
      VIAM_MACHINE_FQDN: 'robot-main.loc.viam.cloud',
    });
    for (const name of MODULE_ENV_VARIABLES) expect(env).toHaveProperty(name);
    expect(MODULE_ENV_VARIABLES).toHaveLength(12);
  });

  test('local module: root is the executable folder, no automatic VIAM_MODULE_ID', () => {
    const { env } = moduleEnvironment({ ...local, module_id: 'acme:mine' }, serverEnv, identity);
    expect(env.VIAM_MODULE_ROOT).toBe('/opt/my-mod/bin');
    expect(env.VIAM_MODULE_DATA).toBe('/root/.viam/module-data/m-1/my_mod');
    for (const name of NOT_AUTOMATIC_FOR_LOCAL_MODULES) expect(env).not.toHaveProperty(name);
    expect(env.VIAM_API_KEY).toBe('key-secret');
  });

  test('a local module gets VIAM_MODULE_ID only when set manually in env', () => {
    const { env } = moduleEnvironment({ ...local, env: { VIAM_MODULE_ID: 'acme:mine' } }, serverEnv, identity);
    expect(env.VIAM_MODULE_ID).toBe('acme:mine');
  });

  test('machine without cloud identity: no cloud variables, data under "local", home from VIAM_HOME or HOME', () => {
    const { env } = moduleEnvironment(registry, { ...serverEnv, VIAM_HOME: '/var/viam' });
    expect(env.VIAM_HOME).toBe('/var/viam');
    expect(env.VIAM_MODULE_DATA).toBe('/var/viam/module-data/local/acme_sensors');
    for (const name of [
      'VIAM_API_KEY',
      'VIAM_API_KEY_ID',
      'VIAM_MACHINE_ID',
      'VIAM_MACHINE_PART_ID',
      'VIAM_LOCATION_ID',
      'VIAM_PRIMARY_ORG_ID',
      'VIAM_MACHINE_FQDN',
    ]) {
      expect(env).not.toHaveProperty(name);
    }
    expect(moduleEnvironment(local, { HOME: '/home/pi' }).env.VIAM_HOME).toBe('/home/pi/.viam');
    expect(moduleEnvironment(local, {}).env).not.toHaveProperty('VIAM_HOME');
  });

  test('the user env is substituted and overrides everything, missing variables reported', () => {
    const mod: ModuleConfig = {
      ...registry,
      env: {
        PATH: '/opt/acme/bin:${environment.PATH}',
        VIAM_MODULE_DATA: '/data/override',
        VIAM_MODULE_STARTUP_TIMEOUT: '7m15s',
        TOKEN_FILE: '${environment.NO_SUCH}/${environment.NO_SUCH}',
      },
    };
    const { env, missing } = moduleEnvironment(mod, serverEnv, identity);
    expect(env.PATH).toBe('/opt/acme/bin:/usr/bin');
    expect(env.VIAM_MODULE_DATA).toBe('/data/override');
    expect(env.VIAM_MODULE_STARTUP_TIMEOUT).toBe('7m15s');
    expect(env.TOKEN_FILE).toBe('${environment.NO_SUCH}/${environment.NO_SUCH}');
    expect(missing).toEqual(['NO_SUCH']);
  });

  test('timeouts from the server environment, unusable ones replaced by the defaults', () => {
    expect(
      moduleEnvironment(registry, { VIAM_RESOURCE_CONFIGURATION_TIMEOUT: '4m0s', VIAM_MODULE_STARTUP_TIMEOUT: '420s' }).env,
    ).toMatchObject({
      VIAM_RESOURCE_CONFIGURATION_TIMEOUT: '4m0s',
      VIAM_MODULE_STARTUP_TIMEOUT: '7m0s',
    });
    expect(moduleEnvironment(registry, { VIAM_RESOURCE_CONFIGURATION_TIMEOUT: 'soon', VIAM_MODULE_STARTUP_TIMEOUT: '' }).env).toMatchObject(
      {
        VIAM_RESOURCE_CONFIGURATION_TIMEOUT: '1m0s',
        VIAM_MODULE_STARTUP_TIMEOUT: '5m0s',
      },
    );
  });

  test('placeholders in a local executable_path', () => {
    const r = moduleEnvironment({ ...local, executable_path: '${environment.HOME}/mods/run' }, serverEnv);
    expect(r.env.VIAM_MODULE_ROOT).toBe('/root/mods');
    const m = moduleEnvironment({ ...local, executable_path: '${environment.MODS}/run' }, serverEnv);
    expect(m.missing).toEqual(['MODS']);
  });
});

describe('isSecretEnvName', () => {
  test.each([
    'VIAM_API_KEY',
    'VIAM_API_KEY_ID',
    'DB_PASSWORD',
    'db_passwd',
    'GITHUB_TOKEN',
    'AWS_SECRET_ACCESS_KEY',
    'GOOGLE_CREDENTIALS',
    'SSH_PRIVATE_KEY',
    'openai-apikey',
    'client_secret',
  ])('%s is secret', (name) => expect(isSecretEnvName(name)).toBe(true));
  test.each(['PATH', 'HOME', 'PWD', 'VIAM_MODULE_DATA', 'LOG_LEVEL', 'KEYBOARD_LAYOUT', 'VIAM_MACHINE_ID'])('%s is not secret', (name) =>
    expect(isSecretEnvName(name)).toBe(false),
  );
});
