import {
  configSecrets,
  isCodeOwnedKey,
  MachineConfigSchema,
  normalApi,
  normalModel,
  usesLegacyApi,
  validateMachineConfig,
} from '../../src/domain';

describe('resource forms: one normal form for API and model', () => {
  test.each<[string, Record<string, unknown>, 'components' | 'services', string]>([
    ['an API triplet', { api: 'rdk:component:camera' }, 'components', 'rdk:component:camera'],
    ['type alone under components', { type: 'camera' }, 'components', 'rdk:component:camera'],
    ['type with namespace', { type: 'camera', namespace: 'acme' }, 'components', 'acme:component:camera'],
    ['type under services', { type: 'navigation' }, 'services', 'rdk:service:navigation'],
    ['api wins over type', { api: 'rdk:component:arm', type: 'camera' }, 'components', 'rdk:component:arm'],
    ['an API object', { api: { namespace: 'rdk', type: 'component', subtype: 'motor' } }, 'components', 'rdk:component:motor'],
  ])('%s', (_, entry, list, api) => {
    expect(normalApi(entry, list)).toBe(api);
  });
  test.each<[string, Record<string, unknown>, 'components' | 'services', string]>([
    ['a triplet', { model: 'acme:cams:usb' }, 'components', 'acme:cams:usb'],
    ['a bare builtin name', { model: 'webcam' }, 'components', 'rdk:builtin:webcam'],
    ['a service without model', {}, 'services', 'rdk:builtin:builtin'],
    ['a model object', { model: { namespace: 'acme', model_family: 'cams', name: 'usb' } }, 'components', 'acme:cams:usb'],
  ])('model: %s', (_, entry, list, model) => {
    expect(normalModel(entry, list)).toBe(model);
  });
  test('the legacy form is recognized', () => {
    expect(usesLegacyApi({ type: 'camera' })).toBe(true);
    expect(usesLegacyApi({ api: 'rdk:component:camera', type: 'x' })).toBe(false);
  });
});

describe('the whole language validates as the machine server reads it', () => {
  const real = {
    _comment: 'kitchen robot',
    components: [
      {
        name: 'cam',
        type: 'camera',
        model: 'webcam',
        attributes: { video_path: 'video0' },
        frame: { parent: 'world', translation: { x: 0, y: 0, z: 120 } },
      },
      {
        name: 'base',
        type: 'base',
        namespace: 'rdk',
        model: 'wheeled',
        depends_on: ['left', 'right'],
        service_configs: [{ type: 'data_manager', attributes: { capture_methods: [{ method: 'Position', capture_frequency_hz: 1 }] } }],
      },
      { name: 'left', type: 'motor', model: 'gpio', log_configuration: { level: 'debug' } },
      { name: 'right', api: 'rdk:component:motor', model: 'viam:viam:fake' },
      { name: 'from-fragment-user', type: 'sensor', model: 'fake', depends_on: ['fragment-board'] },
    ],
    services: [
      { name: 'dm', type: 'data_manager', attributes: { sync_interval_mins: 1 } },
      { name: 'nav', type: 'navigation', model: 'builtin' },
    ],
    modules: [{ name: 'old-shape', executable_path: '/opt/mod/run.sh' }],
    remotes: [{ name: 'arm-pi', address: 'arm-pi.local:8080', auth: { credentials: { type: 'robot-location-secret', payload: 'shh' } } }],
    processes: [{ id: 'ui', name: 'python3', args: ['serve.py'], cwd: '/home/pi', one_shot: false, log: true }],
    network: { bind_address: ':8080', sessions: { heartbeat_window: '2s' } },
    auth: { handlers: [{ type: 'api-key', config: { k1: 'secret-key', keys: ['k1'] } }] },
    maintenance: { sensor_name: 'rdk:component:sensor/door', maintenance_allowed_key: 'closed' },
    jobs: [{ name: 'poll', schedule: '30s', resource: 'cam', method: 'GetImages' }],
    log: [{ pattern: 'rdk.resource_manager.*', level: 'warn' }],
    debug: false,
    enable_web_profile: false,
    agent: {
      network_configuration: { hotspot_password: 'viamsetup2' },
      additional_networks: { home: { type: 'wifi', ssid: 'home', psk: 'wifi-pass' } },
    },
    ui_folder: '/srv/ui',
  };

  test('no error: only warnings naming what fails at run time', () => {
    const r = validateMachineConfig(real);
    expect(r.errors).toEqual([]);
    const codes = r.warnings.map((w) => `${w.code} ${w.path}`);
    expect(codes).toEqual(
      expect.arrayContaining([
        'model-module-mismatch components[3].model',
        'depends-on-missing components[4].depends_on[0]',
        'ignored-section processes',
      ]),
    );
    expect(r.warnings.find((w) => w.code === 'model-module-mismatch')?.message).toContain('resource "right" will not start');
  });

  test('the schema keeps every key, unknown ones included', () => {
    expect(MachineConfigSchema.parse(real)).toEqual(real);
  });

  test('secrets are found where the language declares them', () => {
    expect(configSecrets(real).map((s) => s.path)).toEqual([
      'remotes[0].auth.credentials.payload',
      'auth.handlers[0].config.k1',
      'agent.network_configuration.hotspot_password',
      'agent.additional_networks.home.psk',
    ]);
  });

  test("code owns every section but the service's own", () => {
    expect(isCodeOwnedKey('network')).toBe(true);
    expect(isCodeOwnedKey('_comment')).toBe(true);
    expect(isCodeOwnedKey('revision')).toBe(false);
    expect(isCodeOwnedKey('cloud')).toBe(false);
  });
});
