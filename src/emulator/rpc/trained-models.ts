/**
 * ML models as the registry shows them: when a training job completes, its model is an
 * ML model item of the job's organization, named `<namespace>:<model name>` (or
 * `<organization id>:<model name>` when the organization has no public namespace), private
 * to the organization, with one version per completed job. A model uploaded as an
 * `ml_model` package is one too, a version per upload. Deploying it is a machine
 * `packages` entry `{package: "<organization id>/<model name>", version, type: "ml_model"}`.
 */
import { knowsOrganization, type Principal } from '../auth/principal';
import type { Db } from '../db/database';
import { getOrganization, organizationByClaimedNamespace, organizationByNamespace, type OrganizationRecord } from '../store/accounts';
import { ModelFramework, ModelType, parseModelFramework, parseModelType } from '../../domain/training';
import { organizationPackages, packageVersions, type PackageVersionRecord } from '../store/packages';
import { timestamp } from './context';

/** `viam.app.packages.v1.PackageType.ML_MODEL`. */
const ML_MODEL_PACKAGE_TYPE = 2;
/** `viam.app.v1.Visibility.PRIVATE`. */
const PRIVATE = 1;

/** One version of an ML model, trained or uploaded. */
export interface ModelVersionRecord {
  readonly modelVersion: string;
  readonly createdOn: number;
  readonly modelType: ModelType;
  readonly modelFramework: ModelFramework;
}

export interface TrainedModelItem {
  readonly itemId: string;
  readonly organization: OrganizationRecord;
  readonly modelName: string;
  /** Oldest first; never empty. */
  readonly versions: readonly ModelVersionRecord[];
}

/** An enum value from package metadata: its number, or its name as uploads write it (`object_detection`, `tflite`). */
function enumFrom<T extends number>(value: unknown, parse: (name: string) => T, unspecified: T): T {
  if (typeof value === 'number') return value as T;
  if (typeof value !== 'string') return unspecified;
  try {
    return parse(value);
  } catch {
    return unspecified;
  }
}

function modelVersionOf(v: PackageVersionRecord): ModelVersionRecord {
  return {
    modelVersion: v.version,
    createdOn: v.createdOn,
    modelType: enumFrom(v.metadata.model_type, parseModelType, ModelType.UNSPECIFIED),
    modelFramework: enumFrom(v.metadata.model_framework, parseModelFramework, ModelFramework.UNSPECIFIED),
  };
}

/** The ML model versions (trained and uploaded) of an organization's model, oldest first. */
function modelVersions(db: Db, organizationId: string, modelName: string): ModelVersionRecord[] {
  return packageVersions(db, organizationId, modelName)
    .filter((v) => v.type === 'ml_model')
    .map(modelVersionOf);
}

/** The registry item id of an organization's trained model. */
export function trainedModelItemId(org: OrganizationRecord, modelName: string): string {
  return `${org.publicNamespace || org.id}:${modelName}`;
}

function organizationNamed(db: Db, namespace: string): OrganizationRecord | undefined {
  return getOrganization(db, namespace) ?? organizationByNamespace(db, namespace) ?? organizationByClaimedNamespace(db, namespace);
}

/** The trained model an item id names, when one of the caller's organizations has completed a job for it. */
export function findTrainedModel(db: Db, p: Principal, itemId: string): TrainedModelItem | undefined {
  const colon = itemId.indexOf(':');
  if (colon <= 0 || colon === itemId.length - 1) return undefined;
  const modelName = itemId.slice(colon + 1);
  const organization = organizationNamed(db, itemId.slice(0, colon));
  if (!organization || !knowsOrganization(p, organization.id)) return undefined;
  const versions = modelVersions(db, organization.id, modelName);
  if (versions.length === 0) return undefined;
  return { itemId: trainedModelItemId(organization, modelName), organization, modelName, versions };
}

/** Every ML model of an organization (trained by its jobs or uploaded), by name. */
export function trainedModelsOf(db: Db, organization: OrganizationRecord): TrainedModelItem[] {
  const byName = new Map<string, ModelVersionRecord[]>();
  for (const v of organizationPackages(db, organization.id)) {
    if (v.type !== 'ml_model') continue;
    const list = byName.get(v.name) ?? [];
    list.push(modelVersionOf(v));
    byName.set(v.name, list);
  }
  return [...byName].map(([modelName, versions]) => ({
    itemId: trainedModelItemId(organization, modelName),
    organization,
    modelName,
    versions,
  }));
}

/** `viam.app.v1.RegistryItem` of type ML_MODEL with its `MLModelMetadata`. */
export function trainedModelMessage(item: TrainedModelItem) {
  const first = item.versions[0] as ModelVersionRecord;
  const last = item.versions[item.versions.length - 1] as ModelVersionRecord;
  return {
    itemId: item.itemId,
    organizationId: item.organization.id,
    publicNamespace: item.organization.publicNamespace,
    name: item.modelName,
    type: ML_MODEL_PACKAGE_TYPE,
    visibility: PRIVATE,
    url: '',
    description: `ML model of organization ${item.organization.name}`,
    createdAt: timestamp(first.createdOn),
    updatedAt: timestamp(last.createdOn),
    metadata: {
      case: 'mlModelMetadata' as const,
      value: { versions: item.versions.map((v) => v.modelVersion), modelType: last.modelType, modelFramework: last.modelFramework },
    },
  };
}
