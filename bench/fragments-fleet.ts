/**
 * Two stacks of one fleet, for the fragments benchmark: `frag`, where each machine imports
 * 10 fragments (5 bringing a registry module each, 5 bringing its 10 modular resources, the
 * arm's host a variable set per machine), and `plain`, where each machine declares the same
 * modules and resources inline, as the machine resolves them. The stacks are built as
 * synthesis writes them (a fragment id is a reference to the fragment's output).
 */
import type { DesiredResource, DesiredStack } from '../src/engine/desired/stack';

export const FRAGMENTED_STACK = 'frag';
export const PLAIN_STACK = 'plain';

type Entry = Record<string, unknown>;

const registry = (name: string, moduleId: string, version: string, env?: Record<string, string>): Entry => ({
  type: 'registry',
  name,
  module_id: moduleId,
  version,
  ...(env ? { env } : {}),
});

const HOST = { $variable: { name: 'arm_host' } };

/** The fragments, each as a machine config: 5 with one module, 5 with the resources. */
const FRAGMENTS: ReadonlyArray<{
  readonly name: string;
  readonly config: { modules?: Entry[]; components?: Entry[]; services?: Entry[] };
}> = [
  { name: 'mod-sensors', config: { modules: [registry('mod-sensors', 'acme:sensors', '~1.2', { LOG_LEVEL: 'info' })] } },
  { name: 'mod-vision', config: { modules: [registry('mod-vision', 'acme:vision', '1.0.1')] } },
  { name: 'mod-arm', config: { modules: [registry('mod-arm', 'acme:arm-control', '^3')] } },
  { name: 'mod-lidar', config: { modules: [registry('mod-lidar', 'acme:lidar', '1.4.0')] } },
  { name: 'mod-gripper', config: { modules: [registry('mod-gripper', 'acme:gripper', '2.1.0')] } },
  {
    name: 'board-cam',
    config: {
      components: [
        {
          name: 'board',
          api: 'rdk:component:board',
          model: 'acme:sensors:pi-board',
          attributes: {
            i2cs: [{ name: 'bus1', bus: '1' }],
            digital_interrupts: [{ name: 'echo', pin: '18' }],
            analogs: [{ name: 'vbat', pin: '0', spi_bus: 'main' }],
          },
        },
        {
          name: 'cam',
          api: 'rdk:component:camera',
          model: 'acme:sensors:multi-cam',
          attributes: {
            video_path: '/dev/video0',
            width_px: 1280,
            height_px: 720,
            frame_rate: 30,
            format: 'mjpeg',
            intrinsic_parameters: { fx: 939.2, fy: 940.1, ppx: 640.5, ppy: 360.2, width_px: 1280, height_px: 720 },
          },
        },
      ],
    },
  },
  {
    name: 'ranges',
    config: {
      components: ['front', 'rear', 'left'].map((side) => ({
        name: `range-${side}`,
        api: 'rdk:component:sensor',
        model: 'acme:sensors:hc-sr04',
        attributes: { board: 'board', trigger_pin: side === 'front' ? '16' : '22', echo_interrupt_pin: 'echo', timeout_ms: 1000 },
        depends_on: ['board'],
      })),
    },
  },
  {
    name: 'detector',
    config: {
      services: [
        {
          name: 'detector',
          api: 'rdk:service:vision',
          model: 'acme:vision:box-finder',
          attributes: { camera_name: 'cam', confidence_threshold: 0.6, labels: ['box', 'pallet', 'person'], max_detections: 20 },
          depends_on: ['cam'],
        },
      ],
    },
  },
  {
    name: 'arm',
    config: {
      components: [
        {
          name: 'arm',
          api: 'rdk:component:arm',
          model: 'acme:arm-control:six-axis',
          attributes: {
            host: HOST,
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
        },
      ],
    },
  },
  {
    name: 'lidar-gripper',
    config: {
      components: [
        {
          name: 'lidar',
          api: 'rdk:component:camera',
          model: 'acme:lidar:rplidar-a3',
          attributes: { device_path: '/dev/ttyUSB0', scan_mode: 'sensitivity', min_range_mm: 150, max_range_mm: 25000 },
        },
        {
          name: 'gripper',
          api: 'rdk:component:gripper',
          model: 'acme:gripper:soft-jaw',
          attributes: { arm: 'arm', max_force_n: 40, open_width_mm: 85, pressure_kpa: 55 },
          depends_on: ['arm'],
        },
      ],
    },
  },
];

/** How many fragments each machine of the `frag` stack imports. */
export const FRAGMENT_COUNT = FRAGMENTS.length;

const machineName = (i: number): string => `robot-${String(i).padStart(5, '0')}`;
const armHost = (i: number): string => `10.1.${Math.floor(i / 250)}.${i % 250}`;

/** A fragment's config with the machine's variables filled in. */
function filled(value: unknown, host: string): unknown {
  if (value === HOST) return host;
  if (Array.isArray(value)) return value.map((v) => filled(v, host));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, filled(v, host)]));
  return value;
}

function machine(name: string, config: Entry, dependsOn: readonly string[]): DesiredResource {
  return {
    address: `fleetform_machine.${name}`,
    type: 'fleetform_machine',
    name,
    attributes: { name, config: JSON.stringify(config) },
    dependsOn,
  };
}

/** The fleet of `size` machines importing the 10 fragments, the fragments declared in the same stack. */
export function fragmentedStack(size: number): DesiredStack {
  const fragments: DesiredResource[] = FRAGMENTS.map((f) => ({
    address: `fleetform_fragment.${f.name}`,
    type: 'fleetform_fragment',
    name: f.name,
    attributes: { name: f.name, config: JSON.stringify({ components: [], services: [], modules: [], ...f.config }) },
    dependsOn: [],
  }));
  const addresses = fragments.map((f) => f.address);
  const machines = Array.from({ length: size }, (_, i) => {
    const imports = FRAGMENTS.map((f) => ({
      id: `\${fleetform_fragment.${f.name}.id}`,
      ...(f.name === 'arm' ? { variables: { arm_host: armHost(i) } } : {}),
    }));
    return machine(machineName(i), { components: [], services: [], modules: [], fragments: imports }, addresses);
  });
  return { name: FRAGMENTED_STACK, provider: {}, resources: [...fragments, ...machines], foreign: [] };
}

/** The same fleet with every module and resource inline in each machine. */
export function plainStack(size: number): DesiredStack {
  const machines = Array.from({ length: size }, (_, i) => {
    const config: { components: unknown[]; services: unknown[]; modules: unknown[] } = { components: [], services: [], modules: [] };
    for (const f of FRAGMENTS) {
      const own = filled(f.config, armHost(i)) as typeof f.config;
      config.components.push(...(own.components ?? []));
      config.services.push(...(own.services ?? []));
      config.modules.push(...(own.modules ?? []));
    }
    return machine(`plain-${machineName(i)}`, config, []);
  });
  return { name: PLAIN_STACK, provider: {}, resources: machines, foreign: [] };
}
