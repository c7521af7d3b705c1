import {
  FleetformError,
  MachineConfigSchema,
  parseMachineConfig,
  validateMachineConfig,
  ValidationError,
  type Issue,
} from '../../src/domain';

/** Test-only view of a raw config: loose enough to break it on purpose. */
interface RawResource {
  name?: string;
  api?: string;
  model?: string;
  attributes?: Record<string, unknown>;
  depends_on?: unknown;
  [key: string]: unknown;
}
interface RawModule {
  type?: string;
  name?: string;
  module_id?: string;
  version?: string;
  env?: Record<string, unknown>;
  executable_path?: string;
  [key: string]: unknown;
}
interface RawConfig {
  components: RawResource[];
  services: RawResource[];
  modules: RawModule[];
  [key: string]: unknown;
}

/** A valid config in the seed's shape, built from the seeded registry modules. */
function base(): RawConfig {
  return {
    components: [
      { name: 'board-1', api: 'rdk:component:board', model: 'acme:sensors:pi-board', attributes: {}, depends_on: [] },
      {
        name: 'distance',
        api: 'rdk:component:sensor',
        model: 'acme:sensors:hc-sr04',
        attributes: { trigger_pin: '15', echo_interrupt_pin: '16', board: 'board-1', timeout_ms: 1000 },
        depends_on: ['board-1'],
      },
      {
        name: 'cam',
        api: 'rdk:component:camera',
        model: 'acme:sensors:multi-cam',
        attributes: { sensors: ['distance'] },
        depends_on: ['distance'],
      },
    ],
    services: [{ name: 'finder', api: 'rdk:service:vision', model: 'acme:vision:box-finder', depends_on: ['cam'] }],
    modules: [
      { type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '~1.2', env: { PATH: '/opt/bin:${environment.PATH}' } },
      { type: 'registry', name: 'acme_vision', module_id: 'acme:vision', version: '1.0.1' },
    ],
  };
}

type Edit = (c: RawConfig) => void;

function run(edit: Edit, options?: Parameters<typeof validateMachineConfig>[1]) {
  const c = base();
  edit(c);
  return validateMachineConfig(c, options);
}

const brief = (issues: readonly Issue[]) => issues.map((i) => ({ code: i.code, path: i.path }));

describe('validateMachineConfig: valid configs', () => {
  test.each<[string, Edit]>([
    ['the seed-shaped base config', () => {}],
    [
      'an empty object',
      (c) => {
        const r: Record<string, unknown> = c;
        delete r.components;
        delete r.services;
        delete r.modules;
      },
    ],
    [
      'empty lists',
      (c) => {
        c.components = [];
        c.services = [];
        c.modules = [];
      },
    ],
    [
      'the same name under two APIs',
      (c) => {
        c.components.push({ name: 'finder', api: 'rdk:component:sensor', model: 'acme:sensors:hc-sr04' });
      },
    ],
    [
      'a built-in model needs no module',
      (c) => {
        c.components.push({ name: 'fake-arm', api: 'rdk:component:arm', model: 'rdk:builtin:fake' });
      },
    ],
    [
      'every version policy form',
      (c) => {
        c.modules[0].version = '1.2.*';
        c.modules[1].version = 'latest-with-prerelease';
        c.modules.push({ type: 'registry', name: 'acme_arm-control', module_id: 'acme:arm-control', version: '^3' });
      },
    ],
    [
      'a local module with module_id and executable_path',
      (c) => {
        c.modules.push({ type: 'local', name: 'acme_local', module_id: 'acme:local', executable_path: '/opt/local/run.sh' });
        c.components.push({ name: 'thing', api: 'rdk:component:generic', model: 'acme:local:thing' });
      },
    ],
    [
      'placeholders in env, executable_path and attributes at any depth',
      (c) => {
        c.modules.push({ type: 'local', name: 'acme_local', module_id: 'acme:local', executable_path: '${environment.HOME}/run' });
        c.components[1].attributes!.deep = { list: [{ pin: '${environment.PIN}' }] };
      },
    ],
    [
      'unpinned registry module when allowed',
      (c) => {
        delete c.modules[0].version;
      },
    ],
    [
      'a timeout override in a module env',
      (c) => {
        c.modules[0].env!.VIAM_MODULE_STARTUP_TIMEOUT = '7m15s';
      },
    ],
    [
      'unknown keys the service adds',
      (c) => {
        c.agent = { version: 'stable' };
        c.components[0].frame = { parent: 'world' };
        c.components[0].service_configs = [];
        c.modules[0].status = { ok: true };
      },
    ],
  ])('%s', (_, edit) => {
    const r = run(edit, { allowUnpinnedModules: true });
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
  });
});

/** Cases of the table below that fail one item when the machine runs the config: warnings naming it. */
const FAILS_AT_RUN_TIME = new Set([
  'invalid resource name',
  'resource name too long',
  'duplicate name under one API',
  'invalid API triplet',
  'API neither component nor service',
  'invalid model triplet',
  'module type not registry|local',
  'invalid version policy',
  'a Terraform constraint as version (~>1.2)',
  'a bare model name that is no known builtin',
  'model of an unconfigured module',
  'invalid module name',
  'reserved module name',
  'duplicate module name',
  'registry module without module_id',
  'invalid module_id',
  'local module without executable_path',
  'depends_on a missing resource',
  'self dependency',
  'two-resource cycle',
  'cycle across components and services',
  'ambiguous dependency',
]);

describe('validateMachineConfig: errors', () => {
  test.each<[string, Edit, { code: string; path: string }[]]>([
    ['not an object', () => {}, []], // replaced below
    [
      'components is not an array',
      (c) => {
        (c as Record<string, unknown>).components = {};
      },
      [{ code: 'type', path: 'components' }],
    ],
    [
      'wrongly typed data capture',
      (c) => {
        c.components[0].service_configs = [
          { type: 'data_manager', attributes: { capture_methods: [{ method: 'Readings', capture_frequency_hz: '1' }] } },
        ];
      },
      [{ code: 'type', path: 'components[0].service_configs[0].attributes.capture_methods[0].capture_frequency_hz' }],
    ],
    [
      'bind_address that does not parse',
      (c) => {
        c.network = { bind_address: 'localhost' };
      },
      [{ code: 'network', path: 'network.bind_address' }],
    ],
    [
      'TLS certificate without its key',
      (c) => {
        c.network = { tls_cert_file: '/etc/cert.pem' };
      },
      [{ code: 'network', path: 'network' }],
    ],
    [
      'heartbeat window out of range',
      (c) => {
        c.network = { sessions: { heartbeat_window: '5m' } };
      },
      [{ code: 'network', path: 'network.sessions.heartbeat_window' }],
    ],
    [
      'auth handler of another type',
      (c) => {
        c.auth = { handlers: [{ type: 'external', config: {} }] };
      },
      [{ code: 'auth', path: 'auth.handlers[0].type' }],
    ],
    [
      'api-key handler without keys',
      (c) => {
        c.auth = { handlers: [{ type: 'api-key', config: { id: 'k' } }] };
      },
      [{ code: 'auth', path: 'auth.handlers[0].config' }],
    ],
    [
      'a section of the wrong type',
      (c) => {
        c.debug = 'yes';
      },
      [{ code: 'type', path: 'debug' }],
    ],
    [
      'wrongly typed fields',
      (c) => {
        (c.components[0] as Record<string, unknown>).attributes = [];
        c.components[0].depends_on = 'x';
      },
      [
        { code: 'type', path: 'components[0].attributes' },
        { code: 'type', path: 'components[0].depends_on' },
      ],
    ],
    [
      'module type not registry|local',
      (c) => {
        c.modules[1].type = 'cloud';
      },
      [{ code: 'module-type', path: 'modules[1].type' }],
    ],
    [
      'env value not a string',
      (c) => {
        c.modules[0].env!.N = 5;
      },
      [{ code: 'type', path: 'modules[0].env.N' }],
    ],
    [
      'invalid resource name',
      (c) => {
        c.services[0].name = 'box finder';
      },
      [{ code: 'resource-name', path: 'services[0].name' }],
    ],
    [
      'resource name too long',
      (c) => {
        c.services[0].name = 'x'.repeat(61);
      },
      [{ code: 'resource-name', path: 'services[0].name' }],
    ],
    [
      'duplicate name under one API',
      (c) => {
        c.components.push({ name: 'board-1', api: 'rdk:component:board', model: 'acme:sensors:pi-board' });
      },
      [{ code: 'duplicate-resource-name', path: 'components[3].name' }],
    ],
    [
      'invalid API triplet',
      (c) => {
        c.components[0].api = 'rdk:board';
      },
      [{ code: 'api-triplet', path: 'components[0].api' }],
    ],
    [
      'API neither component nor service',
      (c) => {
        c.components[0].api = 'rdk:widget:board';
      },
      [{ code: 'api-triplet', path: 'components[0].api' }],
    ],
    [
      'invalid model triplet',
      (c) => {
        c.components[2].model = 'acme:multi-cam';
      },
      [{ code: 'model-triplet', path: 'components[2].model' }],
    ],
    [
      'a bare model name that is no known builtin',
      (c) => {
        c.components[2].model = 'multi-cam';
      },
      [{ code: 'unknown-builtin-model', path: 'components[2].model' }],
    ],
    [
      'model of an unconfigured module',
      (c) => {
        c.components[2].model = 'other:cams:multi-cam';
      },
      [{ code: 'model-module-mismatch', path: 'components[2].model' }],
    ],
    [
      'invalid module name',
      (c) => {
        c.modules[1].name = 'acme vision';
      },
      [
        { code: 'module-name', path: 'modules[1].name' },
        { code: 'module-naming-convention', path: 'modules[1].name' },
      ],
    ],
    [
      'reserved module name',
      (c) => {
        c.modules[1].name = 'parent';
      },
      [
        { code: 'module-name', path: 'modules[1].name' },
        { code: 'module-naming-convention', path: 'modules[1].name' },
      ],
    ],
    [
      'duplicate module name',
      (c) => {
        c.modules.push({ type: 'registry', name: 'acme_sensors', module_id: 'acme:arm-control', version: '3.0.0' });
      },
      [
        { code: 'module-naming-convention', path: 'modules[2].name' },
        { code: 'duplicate-module-name', path: 'modules[2].name' },
      ],
    ],
    [
      'registry module without module_id',
      (c) => {
        delete c.modules[1].module_id;
      },
      [
        { code: 'required', path: 'modules[1].module_id' },
        { code: 'model-module-mismatch', path: 'services[0].model' },
      ],
    ],
    [
      'invalid module_id',
      (c) => {
        c.modules[1].module_id = 'acme-vision';
      },
      [
        { code: 'module-id', path: 'modules[1].module_id' },
        { code: 'model-module-mismatch', path: 'services[0].model' },
      ],
    ],
    [
      'registry module without version',
      (c) => {
        delete c.modules[1].version;
      },
      [{ code: 'required', path: 'modules[1].version' }],
    ],
    [
      'invalid version policy',
      (c) => {
        c.modules[1].version = '>=1.0';
      },
      [{ code: 'module-version', path: 'modules[1].version' }],
    ],
    [
      'a Terraform constraint as version (~>1.2)',
      (c) => {
        c.modules[1].version = '~>1.2';
      },
      [{ code: 'module-version', path: 'modules[1].version' }],
    ],
    [
      'local module without executable_path',
      (c) => {
        c.modules.push({ type: 'local', name: 'acme_local', module_id: 'acme:local' });
      },
      [{ code: 'required', path: 'modules[2].executable_path' }],
    ],
    [
      'invalid placeholder in env',
      (c) => {
        c.modules[0].env!.X = '${secret.X}';
      },
      [{ code: 'placeholder', path: 'modules[0].env.X' }],
    ],
    [
      'invalid placeholder deep in attributes',
      (c) => {
        c.components[1].attributes!.nested = { a: [1, '${HOME}'] };
      },
      [{ code: 'placeholder', path: 'components[1].attributes.nested.a[1]' }],
    ],
    [
      'invalid placeholder in executable_path',
      (c) => {
        c.modules.push({ type: 'local', name: 'acme_l', module_id: 'acme:l', executable_path: '${env.HOME}/x' });
      },
      [{ code: 'placeholder', path: 'modules[2].executable_path' }],
    ],
    [
      'env name holding "=" (no process can receive it)',
      (c) => {
        c.modules[0].env!['A=B'] = 'x';
      },
      [{ code: 'env-name', path: 'modules[0].env["A=B"]' }],
    ],
    [
      'env name holding NUL',
      (c) => {
        c.modules[0].env!['A\0B'] = 'x';
      },
      [{ code: 'env-name', path: 'modules[0].env["A\\u0000B"]' }],
    ],
    [
      'empty env name',
      (c) => {
        c.modules[0].env![''] = 'x';
      },
      [{ code: 'env-name', path: 'modules[0].env[""]' }],
    ],
    [
      'env value holding NUL',
      (c) => {
        c.modules[0].env!.GOOD = 'a\0b';
      },
      [{ code: 'env-name', path: 'modules[0].env.GOOD' }],
    ],
    [
      'depends_on a missing resource',
      (c) => {
        c.services[0].depends_on = ['camera'];
      },
      [{ code: 'depends-on-missing', path: 'services[0].depends_on[0]' }],
    ],
    [
      'self dependency',
      (c) => {
        c.components[0].depends_on = ['board-1'];
      },
      [{ code: 'depends-on-self', path: 'components[0].depends_on[0]' }],
    ],
    [
      'two-resource cycle',
      (c) => {
        c.components[0].depends_on = ['distance'];
      },
      [{ code: 'depends-on-cycle', path: 'components[0].depends_on' }],
    ],
    [
      'cycle across components and services',
      (c) => {
        c.components[0].depends_on = ['finder'];
      },
      [{ code: 'depends-on-cycle', path: 'components[0].depends_on' }],
    ],
    [
      'ambiguous dependency',
      (c) => {
        c.services.push({ name: 'cam', api: 'rdk:service:vision', model: 'acme:vision:box-finder' });
      },
      [{ code: 'depends-on-ambiguous', path: 'services[0].depends_on[0]' }],
    ],
  ])('%s', (name, edit, expected) => {
    const r = name === 'not an object' ? validateMachineConfig([]) : run(edit);
    const all = [...r.errors, ...r.warnings];
    if (name === 'not an object') {
      expect(brief(r.errors)).toEqual([{ code: 'type', path: '' }]);
      return;
    }
    if (FAILS_AT_RUN_TIME.has(name)) {
      // What fails one resource or module at run time is a warning: the service stores it and the machine runs the rest.
      expect(r.errors).toEqual([]);
      expect(brief(r.warnings).sort(byPath)).toEqual([...expected].sort(byPath));
      return;
    }
    expect(r.errors.length).toBeGreaterThan(0);
    expect(brief(all).sort(byPath)).toEqual([...expected].sort(byPath));
    for (const i of r.errors) {
      expect(i.severity).toBe('error');
      expect(i.message.length).toBeGreaterThan(0);
      expect(i.hint).toBeTruthy();
    }
  });
});

function byPath(a: { code: string; path: string }, b: { code: string; path: string }): number {
  return a.path.localeCompare(b.path) || a.code.localeCompare(b.code);
}

describe('validateMachineConfig: warnings', () => {
  test.each<[string, Edit, { code: string; path: string }[]]>([
    [
      'module name not <namespace>_<module-name>',
      (c) => {
        c.modules[0].name = 'sensors';
      },
      [{ code: 'module-naming-convention', path: 'modules[0].name' }],
    ],
    [
      'model mismatch is lenient with a local module without module_id',
      (c) => {
        c.modules.push({ type: 'local', name: 'mine', executable_path: '/opt/mine/run' });
        c.components.push({ name: 'thing', api: 'rdk:component:generic', model: 'me:mine:thing' });
      },
      [{ code: 'model-module-mismatch', path: 'components[3].model' }],
    ],
    [
      'relative executable_path',
      (c) => {
        c.modules.push({ type: 'local', name: 'acme_l', module_id: 'acme:l', executable_path: 'bin/run' });
      },
      [{ code: 'executable-path', path: 'modules[2].executable_path' }],
    ],
    [
      'version on a local module',
      (c) => {
        c.modules.push({ type: 'local', name: 'acme_l', module_id: 'acme:l', executable_path: '/x', version: '1.0.0' });
      },
      [{ code: 'ignored-field', path: 'modules[2].version' }],
    ],
    [
      'executable_path on a registry module',
      (c) => {
        c.modules[1].executable_path = '/x';
      },
      [{ code: 'ignored-field', path: 'modules[1].executable_path' }],
    ],
    [
      'unparsable timeout override falls back to the default',
      (c) => {
        c.modules[0].env!.VIAM_RESOURCE_CONFIGURATION_TIMEOUT = '90';
      },
      [{ code: 'duration', path: 'modules[0].env.VIAM_RESOURCE_CONFIGURATION_TIMEOUT' }],
    ],
    [
      'unusual env name',
      (c) => {
        c.modules[0].env!['MY-VAR'] = 'x';
      },
      [{ code: 'env-name', path: 'modules[0].env.MY-VAR' }],
    ],
    [
      'the same module twice',
      (c) => {
        c.modules.push({ type: 'registry', name: 'acme_sensors2', module_id: 'acme:sensors', version: '1.2.3' });
      },
      [
        { code: 'module-naming-convention', path: 'modules[2].name' },
        { code: 'duplicate-module-id', path: 'modules[2].module_id' },
      ],
    ],
  ])('%s', (_, edit, expected) => {
    const r = run(edit);
    expect(r.errors).toEqual([]);
    expect(brief(r.warnings).sort(byPath)).toEqual([...expected].sort(byPath));
    for (const w of r.warnings) expect(w.severity).toBe('warning');
  });
});

describe('validateMachineConfig: messages and reporting', () => {
  test('a model mismatch names the resource and lists the configured module ids', () => {
    const r = run((c) => {
      c.components[2].model = 'other:cams:multi-cam';
    });
    expect(r.warnings[0]!.message).toContain('"cam"');
    expect(r.warnings[0]!.message).toContain('other:cams');
    expect(r.warnings[0]!.message).toContain('acme:sensors, acme:vision');
  });
  test('a cycle is printed', () => {
    const r = run((c) => {
      c.components[0].depends_on = ['finder'];
    });
    expect(r.warnings[0]!.message).toBe('circular dependency: board-1 -> finder -> cam -> distance -> board-1');
  });
  test('an invalid version lists the accepted forms', () => {
    const r = run((c) => {
      c.modules[1].version = 'newest';
    });
    expect(r.warnings[0]!.hint).toMatch(/X\.Y\.Z.*~X\.Y.*\^X.*latest.*latest-with-prerelease/);
  });
  test('every problem at once, in document order', () => {
    const r = run((c) => {
      c.modules[1].version = 'bad';
      c.components[0].name = 'bad name';
      c.services[0].depends_on = ['nowhere'];
      c.components[2].api = 'x';
    });
    expect(brief([...r.errors, ...r.warnings])).toEqual([
      { code: 'resource-name', path: 'components[0].name' },
      { code: 'depends-on-missing', path: 'components[1].depends_on[0]' },
      { code: 'api-triplet', path: 'components[2].api' },
      { code: 'depends-on-missing', path: 'services[0].depends_on[0]' },
      { code: 'module-version', path: 'modules[1].version' },
    ]);
  });
  test('a broken entry does not cause spurious missing-dependency errors', () => {
    const r = run((c) => {
      (c.components[0] as Record<string, unknown>).name = 7;
    });
    expect(brief(r.errors)).toEqual([{ code: 'type', path: 'components[0].name' }]);
    expect(r.warnings).toEqual([]);
  });
  test('a component without a name is left out by the machine server (a warning); a service without one is its API default, builtin', () => {
    const r = validateMachineConfig({
      components: [{ api: 'rdk:component:board', model: 'fake' }],
      services: [{ type: 'data_manager' }, { name: 'motion', api: 'rdk:service:motion', model: 'builtin', depends_on: ['builtin'] }],
      processes: [{ name: '/usr/local/bin/lidar', log: true }],
    });
    expect(r.errors).toEqual([]);
    expect(brief(r.warnings)).toEqual([
      { code: 'resource-name', path: 'components[0].name' },
      { code: 'ignored-section', path: 'processes' },
    ]);
  });
  test('pathPrefix is prepended to every path', () => {
    const r = run(
      (c) => {
        c.network = { bind_address: 'x' };
        c.modules[0].name = 'sensors';
      },
      { pathPrefix: 'machines.robot1.config' },
    );
    expect(r.errors[0]!.path).toBe('machines.robot1.config.network.bind_address');
    expect(r.warnings[0]!.path).toBe('machines.robot1.config.modules[0].name');
    expect(validateMachineConfig(7, { pathPrefix: 'm' }).errors[0]!.path).toBe('m');
  });
  test('unpinned registry modules are an error unless allowed', () => {
    expect(
      run((c) => {
        delete c.modules[0].version;
      }).errors,
    ).toHaveLength(1);
    expect(
      run(
        (c) => {
          delete c.modules[0].version;
        },
        { allowUnpinnedModules: true },
      ).errors,
    ).toEqual([]);
  });
});

describe('round trip and parseMachineConfig', () => {
  const fetched = {
    agent: { viam_server: { version: 'stable' } },
    components: [
      {
        name: 'b',
        api: 'rdk:component:board',
        model: 'acme:sensors:pi-board',
        frame: { parent: 'world' },
        attributes: { a: [1, { b: null }] },
      },
    ],
    modules: [{ type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '1.2.3', status: {} }],
    fragments: ['abc'],
    network: { bind_address: ':8080' },
  };
  test('the schema keeps keys it does not model', () => {
    expect(MachineConfigSchema.parse(fetched)).toEqual(fetched);
  });
  test('parseMachineConfig returns an equal copy, key order included', () => {
    const parsed = parseMachineConfig(fetched);
    expect(parsed).not.toBe(fetched);
    expect(JSON.stringify(parsed)).toBe(JSON.stringify(fetched));
  });
  test('parseMachineConfig throws a ValidationError carrying every issue', () => {
    let caught: unknown;
    try {
      parseMachineConfig(
        { components: [{ name: 'x y', api: 'a', model: 'b' }], network: { bind_address: 'x' }, debug: 1 },
        { pathPrefix: 'cfg' },
      );
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect(caught).toBeInstanceOf(FleetformError);
    const e = caught as ValidationError;
    expect(e.issues.filter((i) => i.severity === 'error').map((i) => i.path)).toEqual(['cfg.debug', 'cfg.network.bind_address']);
    expect(e.issues.filter((i) => i.severity === 'warning').map((i) => i.path)).toEqual([
      'cfg.components[0].name',
      'cfg.components[0].api',
      'cfg.components[0].model',
    ]);
    expect(e.message).toContain('2 errors');
    expect(e.message).toContain('cfg.network.bind_address');
  });
});
