/**
 * A synthetic fleet as a CDKTF app: N machines, each with 5 registry modules and 10
 * modular resources with realistic attributes. `revision` changes one attribute of every
 * tenth machine, so two revisions differ on 10% of the fleet.
 */
import { App, TerraformStack } from 'cdktf';
import { FleetProvider, Machine, ModularResource, Module } from '../src/constructs';

/** The registry modules every machine uses (3 seeded, 2 published by the benchmark). */
export const EXTRA_MODULES = [
  { moduleId: 'acme:lidar', version: '1.4.0', models: [{ api: 'rdk:component:camera', model: 'acme:lidar:rplidar-a3' }] },
  { moduleId: 'acme:gripper', version: '2.1.0', models: [{ api: 'rdk:component:gripper', model: 'acme:gripper:soft-jaw' }] },
] as const;

/** Stack name of the benchmark fleet. */
export const FLEET_STACK = 'fleet';

/** The name of the bench fleet's machine `i`. */
export function machineName(i: number): string {
  return `robot-${String(i).padStart(5, '0')}`;
}

/** The host of machine `i`'s arm: what, beside the name, sets machines apart. */
export function machineHost(i: number): string {
  return `10.1.${Math.floor(i / 250)}.${i % 250}`;
}

function declareMachine(stack: TerraformStack, i: number, revision: number): void {
  const id = machineName(i);
  const m = new Machine(stack, id);
  const sensors = new Module(m, 'mod-sensors', { moduleId: 'acme:sensors', version: '~1.2', env: { LOG_LEVEL: 'info' } });
  const vision = new Module(m, 'mod-vision', { moduleId: 'acme:vision', version: '1.0.1' });
  const arm = new Module(m, 'mod-arm', { moduleId: 'acme:arm-control', version: '^3' });
  const lidar = new Module(m, 'mod-lidar', { moduleId: 'acme:lidar', version: '1.4.0' });
  const gripper = new Module(m, 'mod-gripper', { moduleId: 'acme:gripper', version: '2.1.0' });
  const changed = i % 10 === 0 ? revision : 0;
  new ModularResource(m, 'board', {
    api: 'rdk:component:board',
    model: sensors.model('pi-board'),
    attributes: {
      i2cs: [{ name: 'bus1', bus: '1' }],
      digital_interrupts: [{ name: 'echo', pin: '18' }],
      analogs: [{ name: 'vbat', pin: '0', spi_bus: 'main' }],
    },
  });
  for (const side of ['front', 'rear', 'left']) {
    new ModularResource(m, `range-${side}`, {
      api: 'rdk:component:sensor',
      model: sensors.model('hc-sr04'),
      attributes: { board: 'board', trigger_pin: side === 'front' ? '16' : '22', echo_interrupt_pin: 'echo', timeout_ms: 1000 },
      dependsOn: ['board'],
    });
  }
  new ModularResource(m, 'cam', {
    api: 'rdk:component:camera',
    model: sensors.model('multi-cam'),
    attributes: {
      video_path: '/dev/video0',
      width_px: 1280,
      height_px: 720,
      frame_rate: 30 + changed,
      format: 'mjpeg',
      intrinsic_parameters: { fx: 939.2, fy: 940.1, ppx: 640.5, ppy: 360.2, width_px: 1280, height_px: 720 },
    },
  });
  new ModularResource(m, 'detector', {
    api: 'rdk:service:vision',
    model: vision.model('box-finder'),
    attributes: { camera_name: 'cam', confidence_threshold: 0.6, labels: ['box', 'pallet', 'person'], max_detections: 20 },
    dependsOn: ['cam'],
  });
  new ModularResource(m, 'arm', {
    api: 'rdk:component:arm',
    model: arm.model('six-axis'),
    attributes: {
      host: machineHost(i),
      speed_degs_per_sec: 45,
      acceleration_degs_per_sec2: 90,
      joint_limits_deg: [
        [-170, 170],
        [-120, 120],
        [-170, 170],
        [-190, 190],
        [-120, 120],
        [-360, 360],
      ],
    },
  });
  new ModularResource(m, 'lidar', {
    api: 'rdk:component:camera',
    model: lidar.model('rplidar-a3'),
    attributes: { device_path: '/dev/ttyUSB0', scan_mode: 'sensitivity', min_range_mm: 150, max_range_mm: 25000 },
  });
  new ModularResource(m, 'gripper', {
    api: 'rdk:component:gripper',
    model: gripper.model('soft-jaw'),
    attributes: { arm: 'arm', max_force_n: 40, open_width_mm: 85, pressure_kpa: 55 },
    dependsOn: ['arm'],
  });
}

/**
 * Builds the fleet app of `size` machines and synthesizes it into `outdir`; `unchecked`:
 * an app made with `skipValidation` (no validation, so no machine config checks).
 */
export function synthFleet(outdir: string, size: number, revision = 0, unchecked = false): void {
  const app = new App({ outdir, skipValidation: unchecked });
  const stack = new TerraformStack(app, FLEET_STACK);
  new FleetProvider(stack, 'fleet');
  for (let i = 0; i < size; i++) declareMachine(stack, i, revision);
  app.synth();
}
