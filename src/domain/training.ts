import { FleetformError } from './errors';
import { errorIssue, joinPath, warningIssue, type Issue } from './issue';
import { NAME_CHARS_HINT, RESOURCE_NAME_PATTERN } from './names';
import { parseModuleId } from './triplet';

/** Kind of model a training job produces (wire enum `viam.app.mltraining.v1.ModelType`). */
export const ModelType = {
  UNSPECIFIED: 0,
  SINGLE_LABEL_CLASSIFICATION: 1,
  MULTI_LABEL_CLASSIFICATION: 2,
  OBJECT_DETECTION: 3,
} as const;
export type ModelType = (typeof ModelType)[keyof typeof ModelType];

/** Framework of the trained model (wire enum `ModelFramework`). */
export const ModelFramework = {
  UNSPECIFIED: 0,
  TFLITE: 1,
  TENSORFLOW: 2,
  PYTORCH: 3,
  ONNX: 4,
} as const;
export type ModelFramework = (typeof ModelFramework)[keyof typeof ModelFramework];

/** Status of a training job (wire enum `TrainingStatus`). */
export const TrainingStatus = {
  UNSPECIFIED: 0,
  PENDING: 1,
  IN_PROGRESS: 2,
  COMPLETED: 3,
  FAILED: 4,
  CANCELED: 5,
  CANCELING: 6,
} as const;
export type TrainingStatus = (typeof TrainingStatus)[keyof typeof TrainingStatus];

type EnumObject = Readonly<Record<string, number>>;

function wireName(values: EnumObject, prefix: string, v: number): string {
  const short = Object.keys(values).find((k) => values[k] === v);
  return short === undefined ? `${prefix}${v}` : `${prefix}${short}`;
}

function parseWireName<T extends number>(values: EnumObject, prefix: string, what: string, name: string): T {
  const upper = name.trim().toUpperCase().replace(/-/g, '_');
  const short = upper.startsWith(prefix) ? upper.slice(prefix.length) : upper;
  const v = Object.prototype.hasOwnProperty.call(values, short) ? values[short] : undefined;
  if (v === undefined) {
    const accepted = Object.keys(values)
      .filter((k) => k !== 'UNSPECIFIED')
      .map((k) => `${prefix}${k}`);
    throw new FleetformError(`unknown ${what} ${JSON.stringify(name)}`, {
      hint: `use one of: ${accepted.join(', ')} (the prefix ${prefix} may be left out)`,
    });
  }
  return v as T;
}

const MODEL_TYPE_PREFIX = 'MODEL_TYPE_';
const MODEL_FRAMEWORK_PREFIX = 'MODEL_FRAMEWORK_';
const TRAINING_STATUS_PREFIX = 'TRAINING_STATUS_';

/** Wire name of a model type, e.g. `MODEL_TYPE_OBJECT_DETECTION`. */
export function modelTypeName(v: ModelType): string {
  return wireName(ModelType, MODEL_TYPE_PREFIX, v);
}
/** Parses `MODEL_TYPE_OBJECT_DETECTION`, `OBJECT_DETECTION` or `object-detection`; throws a FleetformError otherwise. */
export function parseModelType(name: string): ModelType {
  return parseWireName<ModelType>(ModelType, MODEL_TYPE_PREFIX, 'model type', name);
}

/** Wire name of a model framework, e.g. `MODEL_FRAMEWORK_TFLITE`. */
export function modelFrameworkName(v: ModelFramework): string {
  return wireName(ModelFramework, MODEL_FRAMEWORK_PREFIX, v);
}
/** Parses `MODEL_FRAMEWORK_TFLITE` or `tflite`; throws a FleetformError otherwise. */
export function parseModelFramework(name: string): ModelFramework {
  return parseWireName<ModelFramework>(ModelFramework, MODEL_FRAMEWORK_PREFIX, 'model framework', name);
}

/** Wire name of a training status, e.g. `TRAINING_STATUS_IN_PROGRESS`. */
export function trainingStatusName(v: TrainingStatus): string {
  return wireName(TrainingStatus, TRAINING_STATUS_PREFIX, v);
}
/** Parses `TRAINING_STATUS_IN_PROGRESS` or `in-progress`; throws a FleetformError otherwise. */
export function parseTrainingStatus(name: string): TrainingStatus {
  return parseWireName<TrainingStatus>(TrainingStatus, TRAINING_STATUS_PREFIX, 'training status', name);
}

/** A job that has not yet completed may be canceled: PENDING or IN_PROGRESS. */
export function canCancel(status: TrainingStatus): boolean {
  return status === TrainingStatus.PENDING || status === TrainingStatus.IN_PROGRESS;
}

/**
 * A completed job may be deleted, whether it succeeded or failed: COMPLETED, FAILED,
 * and (DECISION) CANCELED: a canceled job has stopped for good, so it counts as
 * completed and is deletable. CANCELING is still winding down and is not.
 */
export function canDeleteCompleted(status: TrainingStatus): boolean {
  return status === TrainingStatus.COMPLETED || status === TrainingStatus.FAILED || status === TrainingStatus.CANCELED;
}

/** Whether a job's status can no longer change (the same set that may be deleted). */
export function isTerminal(status: TrainingStatus): boolean {
  return canDeleteCompleted(status);
}

/** Checks a registry item id `<namespace>:<name>` (custom training scripts, modules). */
export function checkRegistryItemId(id: string, path = 'registry_item_id'): Issue[] {
  if (parseModuleId(id)) return [];
  return [
    errorIssue('registry-item-id', path, `invalid registry item id ${JSON.stringify(id)}`, 'use <namespace>:<name>, e.g. acme:trainer'),
  ];
}

/** Parameters of a training job on the service's built-in trainer. */
export interface TrainingJobParams {
  datasetId: string;
  modelName: string;
  modelVersion: string;
  modelType: ModelType;
  modelFramework?: ModelFramework;
  tags: readonly string[];
}

/** Parameters of a training job running a registry training script. */
export interface CustomTrainingJobParams {
  datasetId: string;
  registryItemId: string;
  registryItemVersion: string;
  modelName: string;
  modelVersion: string;
  arguments?: Readonly<Record<string, string>>;
  containerVersion?: string;
}

const MODEL_VERSION_PATTERN = /^[\w.+-]+$/;

function checkCommon(p: { datasetId: string; modelName: string; modelVersion: string }, prefix: string | undefined): Issue[] {
  const issues: Issue[] = [];
  if (p.datasetId.trim() === '') {
    issues.push(errorIssue('training-dataset', joinPath(prefix, 'dataset_id'), 'dataset id is empty', 'name the dataset to train on'));
  }
  if (!RESOURCE_NAME_PATTERN.test(p.modelName)) {
    issues.push(
      errorIssue(
        'training-model-name',
        joinPath(prefix, 'model_name'),
        `invalid model name ${JSON.stringify(p.modelName)}`,
        NAME_CHARS_HINT,
      ),
    );
  }
  if (!MODEL_VERSION_PATTERN.test(p.modelVersion)) {
    issues.push(
      errorIssue(
        'training-model-version',
        joinPath(prefix, 'model_version'),
        `invalid model version ${JSON.stringify(p.modelVersion)}`,
        'use letters, digits, ".", "_", "+" and "-"; it must be unique among the versions of the model',
      ),
    );
  }
  return issues;
}

const MODEL_TYPES: readonly number[] = Object.values(ModelType);
const MODEL_FRAMEWORKS: readonly number[] = Object.values(ModelFramework);

/** Checks the parameters of a built-in training job; paths are the snake_case field names under `pathPrefix`. */
export function checkTrainingJobParams(p: TrainingJobParams, pathPrefix?: string): Issue[] {
  const issues = checkCommon(p, pathPrefix);
  if (!MODEL_TYPES.includes(p.modelType) || p.modelType === ModelType.UNSPECIFIED) {
    issues.push(
      errorIssue(
        'training-model-type',
        joinPath(pathPrefix, 'model_type'),
        'model type is missing or unknown',
        'use MODEL_TYPE_SINGLE_LABEL_CLASSIFICATION, MODEL_TYPE_MULTI_LABEL_CLASSIFICATION or MODEL_TYPE_OBJECT_DETECTION',
      ),
    );
  }
  if (p.modelFramework !== undefined && !MODEL_FRAMEWORKS.includes(p.modelFramework)) {
    issues.push(
      errorIssue(
        'training-model-framework',
        joinPath(pathPrefix, 'model_framework'),
        `unknown model framework ${p.modelFramework}`,
        'use MODEL_FRAMEWORK_TFLITE, MODEL_FRAMEWORK_TENSORFLOW, MODEL_FRAMEWORK_PYTORCH or MODEL_FRAMEWORK_ONNX',
      ),
    );
  }
  if (p.tags.length === 0) {
    issues.push(errorIssue('training-tags', joinPath(pathPrefix, 'tags'), 'no tags to train on', 'list the labels the model should learn'));
  }
  const seen = new Set<string>();
  p.tags.forEach((tag, i) => {
    const path = joinPath(pathPrefix, `tags[${i}]`);
    if (tag.trim() === '') issues.push(errorIssue('training-tags', path, 'tag is empty', 'remove it or name the label'));
    else if (seen.has(tag))
      issues.push(warningIssue('training-tags', path, `tag ${JSON.stringify(tag)} is listed twice`, 'remove the repetition'));
    seen.add(tag);
  });
  return issues;
}

/** Checks the parameters of a custom (registry script) training job. */
export function checkCustomTrainingJobParams(p: CustomTrainingJobParams, pathPrefix?: string): Issue[] {
  const issues = checkCommon(p, pathPrefix);
  issues.push(...checkRegistryItemId(p.registryItemId, joinPath(pathPrefix, 'registry_item_id')));
  if (p.registryItemVersion.trim() === '') {
    issues.push(
      errorIssue(
        'training-script-version',
        joinPath(pathPrefix, 'registry_item_version'),
        'training script version is empty',
        'name a version of the training script, e.g. 0.3.0',
      ),
    );
  }
  for (const key of Object.keys(p.arguments ?? {})) {
    if (key.trim() === '') {
      issues.push(errorIssue('training-arguments', joinPath(pathPrefix, 'arguments'), 'argument name is empty', 'name every argument'));
    }
  }
  return issues;
}

/**
 * The smallest version after `wanted` that no job of the model has: the trailing number
 * counted up (`3` -> `4`, `v1.2` -> `v1.3`), else `-2`, `-3`... appended.
 */
export function nextFreeVersion(wanted: string, taken: ReadonlySet<string>): string {
  const numbered = /^(.*?)(\d+)$/.exec(wanted);
  const candidate = (n: number): string => (numbered ? `${numbered[1]}${Number(numbered[2]) + n}` : `${wanted}-${n + 1}`);
  let n = 1;
  while (taken.has(candidate(n))) n++;
  return candidate(n);
}
