/** The typed service client: everything other layers and users import of the client comes from here. */
export { createServiceClient, DEFAULT_MAX_CONNECTIONS, DEFAULT_TIMEOUT_MS } from './service-client';
export type { ServiceClient, ServiceClientOptions } from './service-client';
export type { ApiKeyCredentials } from './auth';
export type { MlTrainingClient } from './ml-training-client';
export type { AppClient, LocationDetail, OrganizationDetail } from './app-client';
export type {
  AdditionalFragmentImport,
  FragmentClient,
  FragmentDetail,
  FragmentErrorKind,
  FragmentHistoryItem,
  FragmentInfo,
  FragmentResolutionInfo,
  FragmentTagInfo,
  FragmentUsageInfo,
  FragmentVisibility,
  ResolvedFragmentInfo,
} from './fragment-client';
export type { DatasetClient } from './dataset-client';
export type { DataPipelinesClient, NewDataPipeline } from './data-pipelines-client';
export type { PackagesClient, PackageUpload, RegistryPackage, RegistryPackageType } from './packages-client';
export { isNotFound, ServiceError, statusCodeName, STATUS_CODE_NAMES, unlessNotFound } from './errors';
export type { ServiceErrorCode } from './errors';
export { DEFAULT_RETRY_POLICY } from './retry';
export type { RetryPolicy, RetryClock } from './retry';
export type { ResponseCompression, TransportKind } from './transport';
// Locations come as LocationDetail: `Location` at the package root is the construct.
export type {
  Dataset,
  DataPipelineDetail,
  PipelineRun,
  PipelineRunStatus,
  PipelineSource,
  Machine,
  MachinePart,
  Organization,
  RegistryItem,
  RegistryItemType,
  RegistryModule,
  SubmitCustomTrainingJobOptions,
  SubmitTrainingJobOptions,
  TrainingJob,
  TrainingJobLogEntry,
} from './types';
