/**
 * Configs written by hand in the forms real robots use, beyond what the corpus holds: every
 * section of the language, both API forms and the object forms, builtin models by their
 * bare names, module settings, secrets in every declared place, and keys no schema knows;
 * then every list empty, absent or filled in turn, the older forms (bare-id fragment
 * imports, `type`/`namespace`, modules without a type, short model names), and environment
 * placeholders wherever the language declares secrets. `<fragment:NAME>` stands for the id
 * of the fragment of HAND_WRITTEN_FRAGMENTS by that name.
 */
export const HAND_WRITTEN: ReadonlyArray<{ file: string; config: Record<string, unknown> }> = [
  {
    file: 'hand-rover.json',
    config: {
      _comment: 'a rover as its owner wrote it',
      components: [
        { name: 'left', type: 'motor', model: 'gpio', attributes: { pins: { pwm: '12', dir: '16' }, board: 'pi' }, depends_on: ['pi'] },
        {
          name: 'right',
          type: 'motor',
          namespace: 'rdk',
          model: 'gpio',
          attributes: { pins: { pwm: '13', dir: '18' }, board: 'pi' },
          depends_on: ['pi'],
          log_configuration: { level: 'debug' },
        },
        { name: 'pi', type: 'board', model: 'pi', attributes: {} },
        {
          name: 'base',
          api: 'rdk:component:base',
          model: 'wheeled',
          attributes: { left: ['left'], right: ['right'], wheel_circumference_mm: 217, width_mm: 260 },
          frame: {
            parent: 'world',
            translation: { x: 0, y: 0, z: 0 },
            orientation: { type: 'ov_degrees', value: { x: 0, y: 0, z: 1, th: 0 } },
            geometry: { type: 'box', x: 260, y: 300, z: 120 },
          },
        },
        {
          name: 'cam',
          type: 'camera',
          model: 'webcam',
          attributes: { video_path: 'video0' },
          frame: { parent: 'base', translation: { x: 0, y: 120, z: 80 } },
          service_configs: [
            {
              type: 'data_manager',
              attributes: {
                capture_methods: [
                  { method: 'ReadImage', capture_frequency_hz: 0.5, additional_params: { mime_type: 'image/jpeg' }, tags: ['front'] },
                ],
              },
            },
          ],
        },
      ],
      services: [
        { name: 'dm', type: 'data_manager', attributes: { capture_dir: '', sync_interval_mins: 0.1, tags: [] } },
        { name: 'slam', type: 'slam', namespace: 'rdk', model: 'viam:slam:cartographer', attributes: {} },
        { name: 'nav', api: 'rdk:service:navigation', model: 'builtin', attributes: { base: 'base' } },
      ],
      modules: [{ name: 'cartographer', executable_path: '/usr/local/bin/cartographer-module' }],
      network: { bind_address: ':8080', sessions: { heartbeat_window: '5s' } },
      enable_web_profile: false,
      disable_log_deduplication: false,
      debug: false,
    },
  },
  {
    file: 'hand-arm-cell.json',
    config: {
      components: [
        {
          name: 'arm',
          api: { namespace: 'rdk', type: 'component', subtype: 'arm' },
          model: 'fake',
          attributes: { 'arm-model': 'ur5e' },
          frame: { parent: 'world' },
        },
        { name: 'gripper', api: 'rdk:component:gripper', model: 'viam:robotiq:2f-85', depends_on: ['arm'], frame: { parent: 'arm' } },
        { name: 'door', type: 'sensor', model: 'fake' },
      ],
      services: [{ name: 'motion', type: 'motion' }],
      modules: [
        {
          type: 'registry',
          name: 'viam_robotiq',
          module_id: 'viam:robotiq',
          version: '0.1.2',
          log_level: 'debug',
          first_run_timeout: '30m',
          tcp_mode: false,
          disabled: false,
        },
        {
          type: 'local',
          name: 'helper',
          executable_path: '/opt/helper/run.sh',
          env: { HELPER_TOKEN: 'helper-secret-1' },
          reload_enabled: true,
          reload_path: '/home/dev/helper',
        },
      ],
      remotes: [
        {
          name: 'camera-pi',
          address: 'camera-pi.local:8080',
          prefix: 'cp_',
          auth: { credentials: { type: 'robot-location-secret', payload: 'location-secret-1' } },
          frame: { parent: 'world', translation: { x: 500, y: 0, z: 0 } },
        },
        {
          name: 'old-pi',
          address: 'old-pi.local:8080',
          secret: 'old-secret-1',
          insecure: true,
          connection_check_interval: '5s',
          reconnect_interval: '2s',
        },
      ],
      processes: [
        {
          id: 'ui',
          name: 'python3',
          args: ['-m', 'http.server', '9000'],
          cwd: '/srv/ui',
          one_shot: false,
          log: true,
          stop_signal: 'SIGINT',
          stop_timeout: '5s',
        },
      ],
      auth: { handlers: [{ type: 'api-key', config: { 'key-id-1': 'api-key-secret-1', keys: ['key-id-1'] } }] },
      maintenance: { sensor_name: 'rdk:component:sensor/door', maintenance_allowed_key: 'closed' },
      jobs: [
        { name: 'poll-door', schedule: '*/5 * * * *', resource: 'door', method: 'GetReadings' },
        {
          name: 'home',
          schedule: 'continuous',
          resource: 'arm',
          method: 'DoCommand',
          command: { home: true },
          log_configuration: { level: 'warn' },
        },
      ],
      log: [
        { pattern: 'rdk.resource_manager.*', level: 'info' },
        { pattern: 'rdk.networking.*', level: 'error' },
      ],
      tracing: { enabled: false },
    },
  },
  {
    file: 'hand-provisioned.json',
    config: {
      components: [{ name: 'temp', api: 'rdk:component:sensor', model: { namespace: 'rdk', model_family: 'builtin', name: 'fake' } }],
      agent: {
        version_control: { agent: 'stable', 'viam-server': '0.52.1' },
        advanced_settings: { debug: false, viam_server_start_timeout_minutes: 10 },
        network_configuration: {
          manufacturer: 'Acme',
          model: 'greenhouse',
          hotspot_prefix: 'acme-setup',
          hotspot_password: 'hotspot-secret-1',
        },
        additional_networks: { barn: { type: 'wifi', ssid: 'barn', psk: 'wifi-secret-1', priority: 10 } },
        system_configuration: { logging_journald_system_max_use_megabytes: 256, os_auto_upgrade_type: 'security' },
      },
      packages: [{ name: 'model', package: 'acme-org/temp-model', type: 'ml_model' }],
      ui_folder: '/srv/dashboard',
      global_log_configuration: [{ pattern: '*', level: 'info' }],
      disable_partial_start: true,
    },
  },
  { file: 'hand-empty.json', config: {} },
  { file: 'hand-settings-only.json', config: { network: { bind_address: ':8080' }, debug: true } },
  {
    file: 'hand-all-empty.json',
    config: {
      components: [],
      services: [],
      modules: [],
      packages: [],
      remotes: [],
      processes: [],
      fragments: [],
      fragment_mods: [],
      jobs: [],
      log: [],
    },
  },
  {
    file: 'hand-mixed-lists.json',
    config: {
      services: [{ name: 'motion', type: 'motion' }],
      modules: [],
      packages: [],
      remotes: [],
      processes: [{ id: 'tick', name: 'date', one_shot: true }],
    },
  },
  {
    file: 'hand-older-forms.json',
    config: {
      components: [
        { name: 'board', type: 'board', model: 'fake', attributes: { fail_new: false } },
        {
          name: 'motor',
          type: 'motor',
          namespace: 'rdk',
          model: 'fake',
          attributes: { board: 'board', max_rpm: 60 },
          depends_on: ['board'],
          service_config: [{ type: 'data_manager', attributes: { capture_methods: [] } }],
        },
      ],
      modules: [
        {
          name: 'helper',
          executable_path: '/opt/helper/run.sh',
          env: { API_TOKEN: '${environment.API_TOKEN}', HELPER_PASSWORD: 'helper-password-2', REGION: 'eu' },
        },
      ],
      remotes: [
        {
          name: 'arm-pi',
          address: 'arm-pi.local:8080',
          auth: { entity: 'arm-pi-key', credentials: { type: 'api-key', payload: '${RDK_AUTH_API_KEY}' } },
        },
        {
          name: 'cam-pi',
          address: 'cam-pi.local:8080',
          auth: { credentials: { type: 'robot-location-secret', payload: '${environment.CAM_PI_SECRET}' } },
        },
        { name: 'old-pi', address: 'old-pi.local:8080', secret: '${environment.OLD_PI_SECRET}' },
        { name: 'lit-pi', address: 'lit-pi.local:8080', auth: { credentials: { type: 'api-key', payload: '${RDK_AUTH_API_KEY}2' } } },
      ],
      processes: [{ id: 'sync', name: '/usr/bin/sync-tool', env: { SYNC_TOKEN: '${environment.SYNC_TOKEN}' } }],
      auth: { handlers: [{ type: 'api-key', config: { 'key-a': '${environment.KEY_A}', keys: ['key-a'] } }] },
      agent: {
        network_configuration: { hotspot_password: '${environment.HOTSPOT_PASSWORD}' },
        additional_networks: { shop: { type: 'wifi', ssid: 'shop', psk: '${SHOP_WIFI_PSK}' } },
      },
    },
  },
  {
    file: 'hand-bare-imports.json',
    config: {
      fragments: ['<fragment:hand-kit>', { id: '<fragment:hand-kit-vars>', variables: { rate: 2, API_TOKEN: '${environment.KIT_TOKEN}' } }],
      fragment_mods: [{ fragment_id: '<fragment:hand-kit>', mods: [{ $set: { 'components.kit-board.attributes.fail_new': true } }] }],
      services: [],
    },
  },
  { file: 'hand-only-import.json', config: { fragments: ['<fragment:hand-kit>'] } },
];

/** Fragments written by hand in the same forms, made before the machines (in this order) so these can import them. */
export const HAND_WRITTEN_FRAGMENTS: ReadonlyArray<{ name: string; config: Record<string, unknown> }> = [
  { name: 'hand-kit', config: { components: [{ name: 'kit-board', type: 'board', model: 'fake', attributes: { fail_new: false } }] } },
  {
    name: 'hand-kit-vars',
    config: {
      components: [
        {
          name: 'kit-motor',
          api: 'rdk:component:motor',
          model: 'fake',
          attributes: { max_rpm: { $variable: { name: 'rate' } }, token: { $variable: { name: 'API_TOKEN' } } },
        },
      ],
      modules: [],
      packages: [],
    },
  },
  { name: 'hand-kit-outer', config: { fragments: ['<fragment:hand-kit>'], services: [] } },
];

/** The config with each `<fragment:NAME>` text replaced by that fragment's id. */
export function withFragmentIds<T>(value: T, ids: ReadonlyMap<string, string>): T {
  if (typeof value === 'string') {
    const m = /^<fragment:(.+)>$/.exec(value);
    const id = m ? ids.get(m[1] as string) : undefined;
    if (m && id === undefined) throw new Error(`no fragment ${m[1]} was made`);
    return (id ?? value) as T;
  }
  if (Array.isArray(value)) return value.map((v: unknown) => withFragmentIds(v, ids)) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withFragmentIds(v, ids)])) as T;
}
