import { z } from 'zod';

/**
 * The attributes each resource kind is synthesized with, one zod schema per attribute,
 * keyed by the attribute's name as Terraform writes it. The engine's kind declarations
 * add what Terraform's schema says of each one; the constructs derive their run-time prop
 * checks from the same schemas (see camelShape), so a rule is written once.
 */

/** A dataset of an organization. */
export const datasetAttributes = {
  name: z.string().min(1, 'a dataset needs a name'),
  organization_id: z.string().optional(),
};

/** A location of an organization, at the top level or inside another location. */
export const locationAttributes = {
  name: z.string().min(1, 'a location needs a name'),
  parent_location_id: z.string().optional(),
  organization_id: z.string().optional(),
};

/** A machine and the whole config of its main part. */
export const machineAttributes = {
  name: z.string().min(1, 'a machine needs a name'),
  location_id: z.string().optional(),
  /** The machine config as JSON text: components, services, modules (without the secret env entries). */
  config: z.string(),
  /**
   * The secret env entries of its modules, by `<module>.<KEY>`: those code marks secret and
   * those whose names look secret. Kept out of `config` so that only this attribute is
   * sensitive as a whole and `config` can be shown (and diffed) in the clear.
   */
  secret_env: z.record(z.string(), z.string()).optional(),
  /** Create and update wait for the machine's health: `timeout` and `settle`, as durations. */
  health_gate: z.record(z.string(), z.string()).optional(),
};

/** What every training job is synthesized with. */
const trainingJobCommonAttributes = {
  organization_id: z.string().optional(),
  dataset_id: z.string().min(1, 'a training job needs a dataset id'),
  model_name: z.string(),
  model_version: z.string(),
  retain_on_delete: z.boolean().optional(),
};

/** A job on the service's built-in trainer. */
export const trainingJobAttributes = {
  ...trainingJobCommonAttributes,
  /** Wire name, e.g. `MODEL_TYPE_OBJECT_DETECTION` (`OBJECT_DETECTION` and `object-detection` are read too). */
  model_type: z.string(),
  model_framework: z.string().optional(),
  tags: z.array(z.string()),
};

/** A job running a training script from the registry. */
export const customTrainingJobAttributes = {
  ...trainingJobCommonAttributes,
  registry_item_id: z.string(),
  registry_item_version: z.string(),
  arguments: z.record(z.string(), z.string()).optional(),
  container_version: z.string().optional(),
};

/** `organization_id` -> `organizationId`. */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

export function camelCase<S extends string>(name: S): CamelCase<S> {
  return name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase()) as CamelCase<S>;
}

/** The chosen attributes under their prop names (`organization_id` as `organizationId`). */
export type CamelShape<Shape, Keys extends keyof Shape & string> = { [K in Keys as CamelCase<K>]: Shape[K] };

/**
 * The schemas of the named attributes under the names a construct's props give them:
 * a construct's strict prop schema spreads this and overrides only the props whose form
 * differs from the attribute's (e.g. a Dataset object for `dataset_id`).
 */
export function camelShape<Shape extends Record<string, z.ZodType>, Keys extends keyof Shape & string>(shape: Shape, keys: readonly Keys[]): CamelShape<Shape, Keys> {
  const out: Record<string, z.ZodType> = {};
  for (const key of keys) out[camelCase(key)] = shape[key] as z.ZodType;
  return out as CamelShape<Shape, Keys>;
}
