/**
 * Configs written by hand in the forms real robots use, beyond what the corpus holds: every
 * section of the language, both API forms and the object forms, builtin models by their
 * bare names, module settings, secrets in every declared place, and keys no schema knows.
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
];
