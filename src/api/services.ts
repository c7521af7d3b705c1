/**
 * Service descriptors (connect-es v1 `ServiceType`) for the parts of the service that
 * fleetform speaks, declared once over the official SDK's message classes. The SDK is
 * loaded asynchronously (see ./sdk), so the descriptors are too: `await loadServices()`.
 */
import { MethodKind } from '@bufbuild/protobuf';
import { loadSdk, type Sdk } from './sdk';
import * as own from './own-messages';

const unary = MethodKind.Unary;

export const AuthService = {
  typeName: 'proto.rpc.v1.AuthService',
  methods: {
    authenticate: { name: 'Authenticate', I: own.AuthenticateRequest, O: own.AuthenticateResponse, kind: unary },
  },
} as const;

export const DatasetService = {
  typeName: 'viam.app.dataset.v1.DatasetService',
  methods: {
    createDataset: { name: 'CreateDataset', I: own.CreateDatasetRequest, O: own.CreateDatasetResponse, kind: unary },
    deleteDataset: { name: 'DeleteDataset', I: own.DeleteDatasetRequest, O: own.DeleteDatasetResponse, kind: unary },
    listDatasetsByOrganizationID: {
      name: 'ListDatasetsByOrganizationID',
      I: own.ListDatasetsByOrganizationIDRequest,
      O: own.ListDatasetsByOrganizationIDResponse,
      kind: unary,
    },
    listDatasetsByIDs: {
      name: 'ListDatasetsByIDs',
      I: own.ListDatasetsByIDsRequest,
      O: own.ListDatasetsByIDsResponse,
      kind: unary,
    },
  },
} as const;

function mlTrainingService(sdk: Sdk) {
  const m = sdk.mlTrainingApi;
  return {
    typeName: 'viam.app.mltraining.v1.MLTrainingService',
    methods: {
      submitTrainingJob: { name: 'SubmitTrainingJob', I: m.SubmitTrainingJobRequest, O: m.SubmitTrainingJobResponse, kind: unary },
      submitCustomTrainingJob: {
        name: 'SubmitCustomTrainingJob',
        I: m.SubmitCustomTrainingJobRequest,
        O: m.SubmitCustomTrainingJobResponse,
        kind: unary,
      },
      getTrainingJob: { name: 'GetTrainingJob', I: m.GetTrainingJobRequest, O: m.GetTrainingJobResponse, kind: unary },
      listTrainingJobs: { name: 'ListTrainingJobs', I: m.ListTrainingJobsRequest, O: m.ListTrainingJobsResponse, kind: unary },
      cancelTrainingJob: { name: 'CancelTrainingJob', I: m.CancelTrainingJobRequest, O: m.CancelTrainingJobResponse, kind: unary },
      deleteCompletedTrainingJob: {
        name: 'DeleteCompletedTrainingJob',
        I: m.DeleteCompletedTrainingJobRequest,
        O: m.DeleteCompletedTrainingJobResponse,
        kind: unary,
      },
      getTrainingJobLogs: { name: 'GetTrainingJobLogs', I: m.GetTrainingJobLogsRequest, O: m.GetTrainingJobLogsResponse, kind: unary },
    },
  } as const;
}

function appService(sdk: Sdk) {
  const a = sdk.appApi;
  return {
    typeName: 'viam.app.v1.AppService',
    methods: {
      listOrganizations: { name: 'ListOrganizations', I: a.ListOrganizationsRequest, O: a.ListOrganizationsResponse, kind: unary },
      getOrganization: { name: 'GetOrganization', I: a.GetOrganizationRequest, O: a.GetOrganizationResponse, kind: unary },
      listLocations: { name: 'ListLocations', I: a.ListLocationsRequest, O: a.ListLocationsResponse, kind: unary },
      createLocation: { name: 'CreateLocation', I: a.CreateLocationRequest, O: a.CreateLocationResponse, kind: unary },
      getLocation: { name: 'GetLocation', I: a.GetLocationRequest, O: a.GetLocationResponse, kind: unary },
      newRobot: { name: 'NewRobot', I: a.NewRobotRequest, O: a.NewRobotResponse, kind: unary },
      getRobot: { name: 'GetRobot', I: a.GetRobotRequest, O: a.GetRobotResponse, kind: unary },
      listRobots: { name: 'ListRobots', I: a.ListRobotsRequest, O: a.ListRobotsResponse, kind: unary },
      deleteRobot: { name: 'DeleteRobot', I: a.DeleteRobotRequest, O: a.DeleteRobotResponse, kind: unary },
      getRobotParts: { name: 'GetRobotParts', I: a.GetRobotPartsRequest, O: a.GetRobotPartsResponse, kind: unary },
      getRobotPart: { name: 'GetRobotPart', I: a.GetRobotPartRequest, O: a.GetRobotPartResponse, kind: unary },
      newRobotPart: { name: 'NewRobotPart', I: a.NewRobotPartRequest, O: a.NewRobotPartResponse, kind: unary },
      updateRobotPart: { name: 'UpdateRobotPart', I: a.UpdateRobotPartRequest, O: a.UpdateRobotPartResponse, kind: unary },
      deleteRobotPart: { name: 'DeleteRobotPart', I: a.DeleteRobotPartRequest, O: a.DeleteRobotPartResponse, kind: unary },
      getModule: { name: 'GetModule', I: a.GetModuleRequest, O: a.GetModuleResponse, kind: unary },
      getRegistryItem: { name: 'GetRegistryItem', I: a.GetRegistryItemRequest, O: a.GetRegistryItemResponse, kind: unary },
      createKey: { name: 'CreateKey', I: a.CreateKeyRequest, O: a.CreateKeyResponse, kind: unary },
    },
  } as const;
}

export type MLTrainingServiceType = ReturnType<typeof mlTrainingService>;
export type AppServiceType = ReturnType<typeof appService>;
export type AuthServiceType = typeof AuthService;
export type DatasetServiceType = typeof DatasetService;

export interface Services {
  readonly sdk: Sdk;
  readonly auth: AuthServiceType;
  readonly dataset: DatasetServiceType;
  readonly mlTraining: MLTrainingServiceType;
  readonly app: AppServiceType;
}

let cached: Promise<Services> | undefined;

/** The descriptors of every service fleetform speaks, built once. */
export function loadServices(): Promise<Services> {
  cached ??= loadSdk().then((sdk) => ({
    sdk,
    auth: AuthService,
    dataset: DatasetService,
    mlTraining: mlTrainingService(sdk),
    app: appService(sdk),
  }));
  return cached;
}
