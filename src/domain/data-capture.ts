import { certainIssue, type Issue } from './issue';
import { isObject } from './json-value';

/**
 * The methods the machine server's data manager can capture, by builtin API: a capture
 * method is built from a collector registered for the resource's API, whatever its model
 * (a module's camera captures what a builtin camera does). A builtin API listed with no
 * methods has no collector at all.
 */
export const DATA_CAPTURE_METHODS: Readonly<Record<string, readonly string[]>> = {
  'rdk:component:arm': ['EndPosition', 'JointPositions', 'DoCommand', 'GetWorldPose'],
  'rdk:component:audio_in': ['GetAudio', 'DoCommand', 'GetWorldPose'],
  'rdk:component:audio_out': ['GetWorldPose'],
  'rdk:component:base': ['DoCommand', 'GetWorldPose'],
  'rdk:component:board': ['Analogs', 'Gpios', 'DoCommand', 'GetWorldPose'],
  'rdk:component:button': ['DoCommand', 'GetWorldPose'],
  'rdk:component:camera': ['NextPointCloud', 'ReadImage', 'GetImages', 'DoCommand', 'GetWorldPose'],
  'rdk:component:encoder': ['TicksCount', 'DoCommand', 'GetWorldPose'],
  'rdk:component:gantry': ['Position', 'Lengths', 'DoCommand', 'GetWorldPose'],
  'rdk:component:generic': ['DoCommand', 'GetWorldPose'],
  'rdk:component:gripper': ['DoCommand', 'GetWorldPose'],
  'rdk:component:input_controller': ['DoCommand', 'GetWorldPose'],
  'rdk:component:motor': ['Position', 'IsPowered', 'DoCommand', 'GetWorldPose'],
  'rdk:component:movement_sensor': [
    'Position',
    'LinearVelocity',
    'AngularVelocity',
    'CompassHeading',
    'LinearAcceleration',
    'Orientation',
    'Readings',
    'DoCommand',
    'GetWorldPose',
  ],
  'rdk:component:pose_tracker': ['DoCommand', 'GetWorldPose'],
  'rdk:component:power_sensor': ['Voltage', 'Current', 'Power', 'Readings', 'DoCommand', 'GetWorldPose'],
  'rdk:component:sensor': ['Readings', 'DoCommand', 'GetWorldPose'],
  'rdk:component:servo': ['Position', 'DoCommand', 'GetWorldPose'],
  'rdk:component:switch': ['DoCommand', 'GetWorldPose'],
  'rdk:service:base_remote_control': ['DoCommand'],
  'rdk:service:discovery': ['DoCommand'],
  'rdk:service:generic': ['DoCommand'],
  'rdk:service:motion': ['DoCommand'],
  'rdk:service:navigation': ['DoCommand'],
  'rdk:service:shell': ['DoCommand'],
  'rdk:service:slam': ['Position', 'PointCloudMap', 'DoCommand'],
  'rdk:service:vision': ['CaptureAllFromCamera', 'DoCommand'],
  'rdk:service:data_manager': [],
  'rdk:service:mlmodel': [],
  'rdk:service:video': [],
  'rdk:service:world_state_store': [],
};

/** The finding code of a capture method the resource's API has no collector for. */
export const CAPTURE_METHOD_CODE = 'capture-method';

const DATA_MANAGER_TYPES: ReadonlySet<string> = new Set(['data_manager', 'rdk:service:data_manager']);

/** The methods a builtin API captures; undefined for a modular or unknown API (nothing can be said). */
export function captureMethodsOf(api: string): readonly string[] | undefined {
  return Object.hasOwn(DATA_CAPTURE_METHODS, api) ? DATA_CAPTURE_METHODS[api] : undefined;
}

/** A resource as the capture check reads it: its normal API, name, and service configs as written. */
export interface CaptureResource {
  readonly name: string;
  readonly api: string;
  readonly service_configs?: unknown;
}

/**
 * The capture methods of a resource that its API has no collector for: the data manager
 * certainly fails to capture them (the rest of the machine runs). Disabled methods are
 * never built; a modular API's methods are the module's to know.
 */
export function checkCaptureMethods(resource: CaptureResource, path: string): Issue[] {
  const known = captureMethodsOf(resource.api);
  if (known === undefined || !Array.isArray(resource.service_configs)) return [];
  const issues: Issue[] = [];
  resource.service_configs.forEach((sc: unknown, i) => {
    if (!isObject(sc) || typeof sc.type !== 'string' || !DATA_MANAGER_TYPES.has(sc.type)) return;
    const methods = isObject(sc.attributes) ? sc.attributes.capture_methods : undefined;
    if (!Array.isArray(methods)) return;
    methods.forEach((m: unknown, j) => {
      if (!isObject(m) || typeof m.method !== 'string' || m.disabled === true || known.includes(m.method)) return;
      issues.push(
        certainIssue(
          CAPTURE_METHOD_CODE,
          `${path}.service_configs[${i}].attributes.capture_methods[${j}].method`,
          `resource "${resource.name}" (${resource.api}) cannot capture ${JSON.stringify(m.method)}: the data manager has no such method for that API, so nothing is captured for it`,
          known.length === 0 ? `${resource.api} has no data capture method; remove the entry` : `use one of: ${known.join(', ')}`,
        ),
      );
    });
  });
  return issues;
}
