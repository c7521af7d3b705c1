import { Component, Machine, Module, Process, Remote, Service } from '../../src/constructs';
import { errorsOf, machineConfig, newStack, synth } from './helpers';

describe('the whole config language in code', () => {
  test('builtin components and services, frames, data capture and log levels are written exactly as declared', () => {
    const { app, stack } = newStack('s');
    const m = new Machine(stack, 'm');
    new Component(m, 'cam', {
      type: 'camera',
      model: 'webcam',
      attributes: { video_path: 'video0' },
      frame: { parent: 'world', translation: { x: 0, y: 0, z: 120 } },
    });
    new Component(m, 'lidar', {
      api: 'rdk:component:camera',
      model: 'fake',
      serviceConfigs: [
        { type: 'data_manager', attributes: { capture_methods: [{ method: 'NextPointCloud', capture_frequency_hz: 0.2 }] } },
      ],
      logConfiguration: { level: 'debug' },
    }).addConfigOverride('_comment', 'front lidar');
    new Service(m, 'dm', { type: 'data_manager', attributes: { sync_interval_mins: 1 } });
    expect(errorsOf(app)).toEqual([]);
    const config = machineConfig(synth(stack), 'm');
    expect(config.components).toEqual([
      {
        name: 'cam',
        type: 'camera',
        model: 'webcam',
        attributes: { video_path: 'video0' },
        frame: { parent: 'world', translation: { x: 0, y: 0, z: 120 } },
      },
      {
        name: 'lidar',
        api: 'rdk:component:camera',
        model: 'fake',
        service_configs: [
          { type: 'data_manager', attributes: { capture_methods: [{ method: 'NextPointCloud', capture_frequency_hz: 0.2 }] } },
        ],
        log_configuration: { level: 'debug' },
        _comment: 'front lidar',
      },
    ]);
    expect(config.services).toEqual([{ name: 'dm', type: 'data_manager', attributes: { sync_interval_mins: 1 } }]);
  });

  test('machine sections, remotes, processes, module settings and overrides', () => {
    const { app, stack } = newStack('s');
    const m = new Machine(stack, 'm', {
      network: { bind_address: ':8080' },
      auth: { handlers: [{ type: 'api-key', config: { k1: 'key-1', keys: ['k1'] } }] },
      maintenance: { sensor_name: 'rdk:component:sensor/door', maintenance_allowed_key: 'closed' },
      jobs: [{ name: 'poll', schedule: '30s', resource: 'cam', method: 'GetImages' }],
      agent: { network_configuration: { hotspot_password: 'p4ssword' } },
      debug: true,
      log: [{ pattern: 'rdk.*', level: 'warn' }],
      enableWebProfile: false,
    });
    new Module(m, 'old', { executablePath: '/opt/old/run', logLevel: 'debug', firstRunTimeout: '30m' }).addConfigOverride(
      'type',
      undefined,
    );
    new Remote(m, 'arm-pi', { address: 'arm-pi.local:8080', credentials: { type: 'robot-location-secret', payload: 'shh' } });
    new Process(m, 'ui', { name: 'python3', args: ['serve.py'], oneShot: false });
    m.addConfigOverride('ui_folder', '/srv/ui').addConfigOverride('services', undefined);
    expect(errorsOf(app)).toEqual([]);
    const config = machineConfig(synth(stack), 'm');
    expect(config).toEqual({
      components: [],
      modules: [{ name: 'old', executable_path: '/opt/old/run', log_level: 'debug', first_run_timeout: '30m' }],
      remotes: [{ name: 'arm-pi', address: 'arm-pi.local:8080', auth: { credentials: { type: 'robot-location-secret', payload: 'shh' } } }],
      processes: [{ id: 'ui', name: 'python3', args: ['serve.py'], one_shot: false }],
      network: { bind_address: ':8080' },
      auth: { handlers: [{ type: 'api-key', config: { k1: 'key-1', keys: ['k1'] } }] },
      maintenance: { sensor_name: 'rdk:component:sensor/door', maintenance_allowed_key: 'closed' },
      jobs: [{ name: 'poll', schedule: '30s', resource: 'cam', method: 'GetImages' }],
      agent: { network_configuration: { hotspot_password: 'p4ssword' } },
      debug: true,
      log: [{ pattern: 'rdk.*', level: 'warn' }],
      enable_web_profile: false,
      ui_folder: '/srv/ui',
    });
  });

  test('a whole-config error in a section is refused at synth', () => {
    const { app, stack } = newStack('s');
    new Machine(stack, 'm', { network: { bind_address: 'nowhere' } });
    expect(errorsOf(app)).toEqual(['s/m network.bind_address network']);
  });
});
