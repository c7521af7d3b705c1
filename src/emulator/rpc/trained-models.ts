/**
 * Trained models as the registry shows them: when a training job completes, its model is an
 * ML model item of the job's organization, named `<namespace>:<model name>` (or
 * `<organization id>:<model name>` when the organization has no public namespace), private
 * to the organization, with one version per completed job. Deploying it is a machine
 * `packages` entry `{package: "<organization id>/<model name>", version, type: "ml_model"}`.
 */
import { knowsOrganization, type Principal } from '../auth/principal';
import type { Db } from '../db/database';
import { getOrganization, organizationByClaimedNamespace, organizationByNamespace, type OrganizationRecord } from '../store/accounts';
import { trainedModelNames, trainedModelVersions, type TrainedModelRecord } from '../store/jobs';
import { timestamp } from './context';

/** `viam.app.packages.v1.PackageType.ML_MODEL`. */
const ML_MODEL_PACKAGE_TYPE = 2;
/** `viam.app.v1.Visibility.PRIVATE`. */
const PRIVATE = 1;

export interface TrainedModelItem {
  readonly itemId: string;
  readonly organization: OrganizationRecord;
  readonly modelName: string;
  /** Oldest first; never empty. */
  readonly versions: readonly TrainedModelRecord[];
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
  const versions = trainedModelVersions(db, organization.id, modelName);
  if (versions.length === 0) return undefined;
  return { itemId: trainedModelItemId(organization, modelName), organization, modelName, versions };
}

/** Every model an organization's completed jobs trained, by name. */
export function trainedModelsOf(db: Db, organization: OrganizationRecord): TrainedModelItem[] {
  return trainedModelNames(db, organization.id).map((modelName) => ({
    itemId: trainedModelItemId(organization, modelName),
    organization,
    modelName,
    versions: trainedModelVersions(db, organization.id, modelName),
  }));
}

/** `viam.app.v1.RegistryItem` of type ML_MODEL with its `MLModelMetadata`. */
export function trainedModelMessage(item: TrainedModelItem) {
  const first = item.versions[0] as TrainedModelRecord;
  const last = item.versions[item.versions.length - 1] as TrainedModelRecord;
  return {
    itemId: item.itemId,
    organizationId: item.organization.id,
    publicNamespace: item.organization.publicNamespace,
    name: item.modelName,
    type: ML_MODEL_PACKAGE_TYPE,
    visibility: PRIVATE,
    url: '',
    description: `trained by ML training jobs of organization ${item.organization.name}`,
    createdAt: timestamp(first.createdOn),
    updatedAt: timestamp(last.createdOn),
    metadata: {
      case: 'mlModelMetadata' as const,
      value: { versions: item.versions.map((v) => v.modelVersion), modelType: last.modelType, modelFramework: last.modelFramework },
    },
  };
}
