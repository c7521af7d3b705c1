/**
 * Dependencies a builtin model takes from its attributes: the machine server's builtin
 * models name the resources they use in well-known attribute fields (a gpio motor's `board`,
 * a wheeled base's `left` and `right` motors, a transform camera's `source`, a vision
 * service's `camera_name`), and build after them as if `depends_on` listed them. A modular
 * resource's dependencies are its module's to say, so none are inferred for it.
 */
import { BUILTIN_MODULE_ID } from './triplet';

/** Attribute fields naming other resources, by builtin model (`<api subtype>/<model name>`; `*` for every model of the API). */
const FIELDS: Readonly<Record<string, readonly string[]>> = {
  'motor/gpio': ['board', 'encoder'],
  'motor/gpiostepper': ['board'],
  'motor/encoded': ['motor', 'encoder'],
  'encoder/incremental': ['board'],
  'encoder/single': ['board'],
  'servo/gpio': ['board'],
  'input_controller/gpio': ['board'],
  'base/wheeled': ['left', 'right'],
  'base/sensor-controlled': ['base', 'movement_sensor'],
  'camera/transform': ['source'],
  'camera/join_pointclouds': ['source_cameras'],
  'movement_sensor/wheeled-odometry': ['base', 'left_motors', 'right_motors', 'movement_sensor'],
  'movement_sensor/merged': ['position', 'orientation', 'compass_heading', 'linear_velocity', 'angular_velocity', 'linear_acceleration'],
  'vision/*': ['camera_name'],
  'vision/mlmodel': ['camera_name', 'mlmodel_name'],
  'vision/detector_3d_segmenter': ['camera_name', 'detector_name'],
  'vision/obstacles_depth': ['camera_name'],
  'vision/obstacles_pointcloud': ['camera_name'],
  'vision/obstacles_distance': ['camera_name', 'sensor_name'],
};

/** The attribute fields that name resources for a builtin model of API subtype `subtype` (model in its normal form). */
export function implicitDependencyFields(subtype: string, model: string): readonly string[] {
  const prefix = `${BUILTIN_MODULE_ID}:`;
  if (!model.startsWith(prefix)) return [];
  const name = model.slice(prefix.length);
  return FIELDS[`${subtype}/${name}`] ?? FIELDS[`${subtype}/*`] ?? [];
}

/** The resource names a builtin resource's attributes imply it depends on, each with the field naming it, in field order. */
export function implicitDependencies(
  subtype: string,
  model: string,
  attributes: unknown,
): { readonly field: string; readonly name: string }[] {
  if (typeof attributes !== 'object' || attributes === null || Array.isArray(attributes)) return [];
  const attrs = attributes as Record<string, unknown>;
  const out: { field: string; name: string }[] = [];
  for (const field of implicitDependencyFields(subtype, model)) {
    const value = attrs[field];
    const names = typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
    for (const name of names) if (name !== '') out.push({ field, name });
  }
  return out;
}
