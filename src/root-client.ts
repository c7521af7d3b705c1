/**
 * The service client's names at the package root, kept for one minor version after the
 * client moved to its own entry, `fleetform/client`. Each is the client's own, marked
 * deprecated. The client's `Machine`, `Dataset` and `TrainingJob` were never the root's
 * (there they name constructs): the root gave them as `MachineInfo`, `DatasetInfo` and
 * `TrainingJobMetadata`, kept here too.
 */
import * as client from './api/client';

/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export const createServiceClient = client.createServiceClient;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export const DEFAULT_MAX_CONNECTIONS = client.DEFAULT_MAX_CONNECTIONS;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export const DEFAULT_TIMEOUT_MS = client.DEFAULT_TIMEOUT_MS;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export const isNotFound = client.isNotFound;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export const ServiceError = client.ServiceError;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type ServiceError = client.ServiceError;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export const statusCodeName = client.statusCodeName;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export const STATUS_CODE_NAMES = client.STATUS_CODE_NAMES;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export const unlessNotFound = client.unlessNotFound;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export const DEFAULT_RETRY_POLICY = client.DEFAULT_RETRY_POLICY;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type ServiceClient = client.ServiceClient;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type ServiceClientOptions = client.ServiceClientOptions;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type ApiKeyCredentials = client.ApiKeyCredentials;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type MlTrainingClient = client.MlTrainingClient;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type AppClient = client.AppClient;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type LocationDetail = client.LocationDetail;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type AdditionalFragmentImport = client.AdditionalFragmentImport;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type FragmentClient = client.FragmentClient;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type FragmentDetail = client.FragmentDetail;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type FragmentErrorKind = client.FragmentErrorKind;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type FragmentHistoryItem = client.FragmentHistoryItem;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type FragmentInfo = client.FragmentInfo;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type FragmentResolutionInfo = client.FragmentResolutionInfo;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type FragmentTagInfo = client.FragmentTagInfo;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type FragmentUsageInfo = client.FragmentUsageInfo;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type FragmentVisibility = client.FragmentVisibility;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type ResolvedFragmentInfo = client.ResolvedFragmentInfo;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type DatasetClient = client.DatasetClient;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type PackagesClient = client.PackagesClient;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type PackageUpload = client.PackageUpload;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type RegistryPackage = client.RegistryPackage;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type RegistryPackageType = client.RegistryPackageType;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type ServiceErrorCode = client.ServiceErrorCode;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type RetryPolicy = client.RetryPolicy;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type RetryClock = client.RetryClock;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type ResponseCompression = client.ResponseCompression;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type TransportKind = client.TransportKind;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type MachinePart = client.MachinePart;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type Organization = client.Organization;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type RegistryItem = client.RegistryItem;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type RegistryItemType = client.RegistryItemType;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type RegistryModule = client.RegistryModule;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type SubmitCustomTrainingJobOptions = client.SubmitCustomTrainingJobOptions;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type SubmitTrainingJobOptions = client.SubmitTrainingJobOptions;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type TrainingJobLogEntry = client.TrainingJobLogEntry;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type TrainingJobMetadata = client.TrainingJob;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type MachineInfo = client.Machine;
/** @deprecated Import it from `fleetform/client`; the package root stops exporting it in the next minor version. */
export type DatasetInfo = client.Dataset;
