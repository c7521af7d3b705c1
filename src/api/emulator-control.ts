/**
 * `fleetform.emulator.v1.EmulatorService`: the emulator's own control surface, kept apart
 * from the real service's APIs. It publishes registry versions (which moves machines whose
 * module update policy admits them), drives training jobs along their lifecycle, shows
 * module cards, creates extra organizations and injects faults into later calls.
 *
 * Every call needs `authorization: Bearer <token>` from an organization-owner API key
 * (tokens come from `proto.rpc.v1.AuthService/Authenticate`, as for the real services).
 * Field numbers are the wire contract: do not renumber.
 */
import { type AnyMessage, Message, MethodKind, proto3, ScalarType, Timestamp } from '@bufbuild/protobuf';

const S = ScalarType;
const pkg = 'fleetform.emulator.v1';

/** An `{api, model}` pair a module version provides. */
export interface ModelRef extends Message<ModelRef> {
  api: string;
  model: string;
}
export const ModelRef = proto3.makeMessageType<ModelRef>(`${pkg}.ModelRef`, () => [
  { no: 1, name: 'api', kind: 'scalar', T: S.STRING },
  { no: 2, name: 'model', kind: 'scalar', T: S.STRING },
]);

/** One machine module moved (or restarted) by a publish. */
export interface ModuleUpdate extends Message<ModuleUpdate> {
  machineId: string;
  machineName: string;
  partId: string;
  moduleName: string;
  fromVersion: string;
  toVersion: string;
  restartCount: number;
}
export const ModuleUpdate = proto3.makeMessageType<ModuleUpdate>(`${pkg}.ModuleUpdate`, () => [
  { no: 1, name: 'machine_id', kind: 'scalar', T: S.STRING },
  { no: 2, name: 'machine_name', kind: 'scalar', T: S.STRING },
  { no: 3, name: 'part_id', kind: 'scalar', T: S.STRING },
  { no: 4, name: 'module_name', kind: 'scalar', T: S.STRING },
  { no: 5, name: 'from_version', kind: 'scalar', T: S.STRING },
  { no: 6, name: 'to_version', kind: 'scalar', T: S.STRING },
  { no: 7, name: 'restart_count', kind: 'scalar', T: S.INT32 },
]);

/**
 * Publishes a version of a registry module. `models` defaults to the models of the newest
 * existing version; an unknown module is created in the caller's organization.
 */
export interface PublishModuleVersionRequest extends Message<PublishModuleVersionRequest> {
  moduleId: string;
  version: string;
  models: ModelRef[];
}
export const PublishModuleVersionRequest = proto3.makeMessageType<PublishModuleVersionRequest>(`${pkg}.PublishModuleVersionRequest`, () => [
  { no: 1, name: 'module_id', kind: 'scalar', T: S.STRING },
  { no: 2, name: 'version', kind: 'scalar', T: S.STRING },
  { no: 3, name: 'models', kind: 'message', T: ModelRef, repeated: true },
]);
export interface PublishModuleVersionResponse extends Message<PublishModuleVersionResponse> {
  moduleId: string;
  version: string;
  updates: ModuleUpdate[];
}
export const PublishModuleVersionResponse = proto3.makeMessageType<PublishModuleVersionResponse>(`${pkg}.PublishModuleVersionResponse`, () => [
  { no: 1, name: 'module_id', kind: 'scalar', T: S.STRING },
  { no: 2, name: 'version', kind: 'scalar', T: S.STRING },
  { no: 3, name: 'updates', kind: 'message', T: ModuleUpdate, repeated: true },
]);

/** Publishes a version of a training script (`namespace:name`); unknown scripts are created in the namespace's organization. */
export interface PublishTrainingScriptRequest extends Message<PublishTrainingScriptRequest> {
  itemId: string;
  version: string;
  /** ModelType number of the models a new script trains (ignored for existing scripts). */
  modelType: number;
  /** ModelFramework number of the models a new script trains (ignored for existing scripts). */
  modelFramework: number;
}
export const PublishTrainingScriptRequest = proto3.makeMessageType<PublishTrainingScriptRequest>(`${pkg}.PublishTrainingScriptRequest`, () => [
  { no: 1, name: 'item_id', kind: 'scalar', T: S.STRING },
  { no: 2, name: 'version', kind: 'scalar', T: S.STRING },
  { no: 3, name: 'model_type', kind: 'scalar', T: S.INT32 },
  { no: 4, name: 'model_framework', kind: 'scalar', T: S.INT32 },
]);
export interface PublishTrainingScriptResponse extends Message<PublishTrainingScriptResponse> {
  itemId: string;
  version: string;
}
export const PublishTrainingScriptResponse = proto3.makeMessageType<PublishTrainingScriptResponse>(`${pkg}.PublishTrainingScriptResponse`, () => [
  { no: 1, name: 'item_id', kind: 'scalar', T: S.STRING },
  { no: 2, name: 'version', kind: 'scalar', T: S.STRING },
]);

/**
 * Moves a training job one step: PENDING -> IN_PROGRESS -> COMPLETED, CANCELING -> CANCELED.
 * With `to_end`, steps until the job is terminal.
 */
export interface AdvanceTrainingJobRequest extends Message<AdvanceTrainingJobRequest> {
  id: string;
  toEnd: boolean;
}
export const AdvanceTrainingJobRequest = proto3.makeMessageType<AdvanceTrainingJobRequest>(`${pkg}.AdvanceTrainingJobRequest`, () => [
  { no: 1, name: 'id', kind: 'scalar', T: S.STRING },
  { no: 2, name: 'to_end', kind: 'scalar', T: S.BOOL },
]);
/** Statuses are `viam.app.mltraining.v1.TrainingStatus` numbers. */
export interface TrainingJobTransition extends Message<TrainingJobTransition> {
  id: string;
  previousStatus: number;
  status: number;
}
export const TrainingJobTransition = proto3.makeMessageType<TrainingJobTransition>(`${pkg}.TrainingJobTransition`, () => [
  { no: 1, name: 'id', kind: 'scalar', T: S.STRING },
  { no: 2, name: 'previous_status', kind: 'scalar', T: S.INT32 },
  { no: 3, name: 'status', kind: 'scalar', T: S.INT32 },
]);

/** Makes a non-terminal job FAILED with `error_status {code, message}` (code defaults to 13 INTERNAL). */
export interface FailTrainingJobRequest extends Message<FailTrainingJobRequest> {
  id: string;
  message: string;
  code: number;
}
export const FailTrainingJobRequest = proto3.makeMessageType<FailTrainingJobRequest>(`${pkg}.FailTrainingJobRequest`, () => [
  { no: 1, name: 'id', kind: 'scalar', T: S.STRING },
  { no: 2, name: 'message', kind: 'scalar', T: S.STRING },
  { no: 3, name: 'code', kind: 'scalar', T: S.INT32 },
]);

/** The module card: update policy, deployed version and the registry's newest versions. */
export interface ModuleCard extends Message<ModuleCard> {
  machineId: string;
  machineName: string;
  partId: string;
  partName: string;
  locationId: string;
  organizationId: string;
  moduleName: string;
  moduleId: string;
  policy: string;
  policyDescription: string;
  deployedVersion: string;
  registryLatest: string;
  registryLatestPrerelease: string;
  restartCount: number;
  updatedAt?: Timestamp;
}
export const ModuleCard = proto3.makeMessageType<ModuleCard>(`${pkg}.ModuleCard`, () => [
  { no: 1, name: 'machine_id', kind: 'scalar', T: S.STRING },
  { no: 2, name: 'machine_name', kind: 'scalar', T: S.STRING },
  { no: 3, name: 'part_id', kind: 'scalar', T: S.STRING },
  { no: 4, name: 'part_name', kind: 'scalar', T: S.STRING },
  { no: 5, name: 'location_id', kind: 'scalar', T: S.STRING },
  { no: 6, name: 'organization_id', kind: 'scalar', T: S.STRING },
  { no: 7, name: 'module_name', kind: 'scalar', T: S.STRING },
  { no: 8, name: 'module_id', kind: 'scalar', T: S.STRING },
  { no: 9, name: 'policy', kind: 'scalar', T: S.STRING },
  { no: 10, name: 'policy_description', kind: 'scalar', T: S.STRING },
  { no: 11, name: 'deployed_version', kind: 'scalar', T: S.STRING },
  { no: 12, name: 'registry_latest', kind: 'scalar', T: S.STRING },
  { no: 13, name: 'registry_latest_prerelease', kind: 'scalar', T: S.STRING },
  { no: 14, name: 'restart_count', kind: 'scalar', T: S.INT32 },
  { no: 15, name: 'updated_at', kind: 'message', T: Timestamp },
]);
/** Cards of every registry module on the machines the caller owns, optionally narrowed. */
export interface ListModuleCardsRequest extends Message<ListModuleCardsRequest> {
  organizationId: string;
  machineId: string;
}
export const ListModuleCardsRequest = proto3.makeMessageType<ListModuleCardsRequest>(`${pkg}.ListModuleCardsRequest`, () => [
  { no: 1, name: 'organization_id', kind: 'scalar', T: S.STRING },
  { no: 2, name: 'machine_id', kind: 'scalar', T: S.STRING },
]);
export interface ListModuleCardsResponse extends Message<ListModuleCardsResponse> {
  cards: ModuleCard[];
}
export const ListModuleCardsResponse = proto3.makeMessageType<ListModuleCardsResponse>(`${pkg}.ListModuleCardsResponse`, () => [
  { no: 1, name: 'cards', kind: 'message', T: ModuleCard, repeated: true },
]);

/** Creates another organization with a location, a dataset and an owner API key. */
export interface CreateOrganizationRequest extends Message<CreateOrganizationRequest> {
  name: string;
  publicNamespace: string;
}
export const CreateOrganizationRequest = proto3.makeMessageType<CreateOrganizationRequest>(`${pkg}.CreateOrganizationRequest`, () => [
  { no: 1, name: 'name', kind: 'scalar', T: S.STRING },
  { no: 2, name: 'public_namespace', kind: 'scalar', T: S.STRING },
]);
/** The same five values as `credentials.json`. */
export interface OrganizationCredentials extends Message<OrganizationCredentials> {
  apiKeyId: string;
  apiKey: string;
  organizationId: string;
  locationId: string;
  datasetId: string;
}
export const OrganizationCredentials = proto3.makeMessageType<OrganizationCredentials>(`${pkg}.OrganizationCredentials`, () => [
  { no: 1, name: 'api_key_id', kind: 'scalar', T: S.STRING },
  { no: 2, name: 'api_key', kind: 'scalar', T: S.STRING },
  { no: 3, name: 'organization_id', kind: 'scalar', T: S.STRING },
  { no: 4, name: 'location_id', kind: 'scalar', T: S.STRING },
  { no: 5, name: 'dataset_id', kind: 'scalar', T: S.STRING },
]);

/**
 * Makes the next `count` calls (default 1) of `method` fail with `code` and `message`.
 * `method` is `<package>.<Service>/<Method>` or just `<Method>`. Faults live in memory only.
 */
export interface InjectFaultRequest extends Message<InjectFaultRequest> {
  method: string;
  code: number;
  message: string;
  count: number;
}
export const InjectFaultRequest = proto3.makeMessageType<InjectFaultRequest>(`${pkg}.InjectFaultRequest`, () => [
  { no: 1, name: 'method', kind: 'scalar', T: S.STRING },
  { no: 2, name: 'code', kind: 'scalar', T: S.INT32 },
  { no: 3, name: 'message', kind: 'scalar', T: S.STRING },
  { no: 4, name: 'count', kind: 'scalar', T: S.INT32 },
]);
export type InjectFaultResponse = Message<AnyMessage>;
export const InjectFaultResponse = proto3.makeMessageType<InjectFaultResponse>(`${pkg}.InjectFaultResponse`, () => []);
export type ClearFaultsRequest = Message<AnyMessage>;
export const ClearFaultsRequest = proto3.makeMessageType<ClearFaultsRequest>(`${pkg}.ClearFaultsRequest`, () => []);
export interface ClearFaultsResponse extends Message<ClearFaultsResponse> {
  cleared: number;
}
export const ClearFaultsResponse = proto3.makeMessageType<ClearFaultsResponse>(`${pkg}.ClearFaultsResponse`, () => [
  { no: 1, name: 'cleared', kind: 'scalar', T: S.INT32 },
]);

const unary = MethodKind.Unary;

/** The emulator control service descriptor (connect-es v1 `ServiceType`). */
export const EmulatorService = {
  typeName: `${pkg}.EmulatorService`,
  methods: {
    publishModuleVersion: {
      name: 'PublishModuleVersion',
      I: PublishModuleVersionRequest,
      O: PublishModuleVersionResponse,
      kind: unary,
    },
    publishTrainingScript: {
      name: 'PublishTrainingScript',
      I: PublishTrainingScriptRequest,
      O: PublishTrainingScriptResponse,
      kind: unary,
    },
    advanceTrainingJob: { name: 'AdvanceTrainingJob', I: AdvanceTrainingJobRequest, O: TrainingJobTransition, kind: unary },
    failTrainingJob: { name: 'FailTrainingJob', I: FailTrainingJobRequest, O: TrainingJobTransition, kind: unary },
    listModuleCards: { name: 'ListModuleCards', I: ListModuleCardsRequest, O: ListModuleCardsResponse, kind: unary },
    createOrganization: { name: 'CreateOrganization', I: CreateOrganizationRequest, O: OrganizationCredentials, kind: unary },
    injectFault: { name: 'InjectFault', I: InjectFaultRequest, O: InjectFaultResponse, kind: unary },
    clearFaults: { name: 'ClearFaults', I: ClearFaultsRequest, O: ClearFaultsResponse, kind: unary },
  },
} as const;

export type EmulatorServiceType = typeof EmulatorService;
