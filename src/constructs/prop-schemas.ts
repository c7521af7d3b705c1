import { z } from 'zod';
import { ModelFramework, ModelType } from '../domain';
import type { CustomTrainingJobProps } from './custom-training-job';
import type { Dataset, DatasetProps } from './dataset';
import { kindOf } from './kinds';
import type { MachineProps } from './machine';
import type { ModularResource, ModularResourceProps } from './modular-resource';
import type { ModuleProps } from './module';
import type { FleetProviderProps } from './provider';
import type { TrainingJobProps } from './training-job';

/**
 * The run-time form of each construct's props interface: strict (an unknown prop is an
 * error), without coercion. Each schema `satisfies` its interface, so a prop whose type
 * changes in one place and not the other does not compile.
 */

const text = z.string();
const stringMap = z.record(z.string(), z.string());
const jsonObject = z.custom<Record<string, unknown>>(
  (x) => x !== null && typeof x === 'object' && !Array.isArray(x),
  'expected an object of attributes',
);
const datasetRef = z.union([text, z.custom<Dataset>((x) => kindOf(x) === 'dataset', 'expected a Dataset or a dataset id')]);
const resourceRef = z.union([text, z.custom<ModularResource>((x) => kindOf(x) === 'modular-resource', 'expected a ModularResource or its name')]);

export const fleetProviderPropsSchema = z.strictObject({
  organizationId: text.optional(),
  locationId: text.optional(),
  endpoint: text.optional(),
}) satisfies z.ZodType<FleetProviderProps>;

export const machinePropsSchema = z.strictObject({
  name: text.optional(),
  locationId: text.optional(),
}) satisfies z.ZodType<MachineProps>;

export const modulePropsSchema = z.strictObject({
  moduleId: text.optional(),
  name: text.optional(),
  version: text.optional(),
  executablePath: text.optional(),
  env: stringMap.optional(),
  sensitiveEnv: stringMap.optional(),
}) satisfies z.ZodType<ModuleProps>;

export const modularResourcePropsSchema = z.strictObject({
  name: text.optional(),
  api: text,
  model: text,
  attributes: jsonObject.optional(),
  dependsOn: z.array(resourceRef).optional(),
}) satisfies z.ZodType<Omit<ModularResourceProps, 'attributes'>>;

export const datasetPropsSchema = z.strictObject({
  name: text.optional(),
  organizationId: text.optional(),
}) satisfies z.ZodType<DatasetProps>;

const trainingCommon = {
  dataset: datasetRef,
  organizationId: text.optional(),
  modelName: text,
  modelVersion: text,
  retainOnDelete: z.boolean().optional(),
};

export const trainingJobPropsSchema = z.strictObject({
  ...trainingCommon,
  modelType: z.enum(ModelType),
  modelFramework: z.enum(ModelFramework).optional(),
  tags: z.array(text),
}) satisfies z.ZodType<TrainingJobProps>;

export const customTrainingJobPropsSchema = z.strictObject({
  ...trainingCommon,
  registryItemId: text,
  registryItemVersion: text,
  arguments: stringMap.optional(),
  containerVersion: text.optional(),
}) satisfies z.ZodType<CustomTrainingJobProps>;
