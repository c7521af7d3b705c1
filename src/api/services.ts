/**
 * Service descriptors (connect-es v1 `ServiceType`) for the parts of the service that
 * fleetform speaks, declared once over the official SDK's message classes. The SDK is
 * loaded asynchronously (see ./sdk), so the descriptors are too: `await loadServices()`.
 */
import { MethodKind } from '@bufbuild/protobuf';
import { loadSdk, type Sdk } from './sdk';
import { GetRobotPartReply } from './get-robot-part-reply';
import { UpdateRobotPartCall } from './update-robot-part-call';
import * as own from './own-messages';
import { MachineStatusReply } from './generated/viam/robot/v1/machine_status_pb';
import { FRAGMENT_METHODS, type FragmentMethods } from './fragment-methods';
import { REGISTRY_VERSION_METHODS, type RegistryVersionMethods } from './registry-version-methods';
import { ORGANIZATION_METHODS, type OrganizationMethods } from './organization-methods';
import * as pkg from './generated/viam/app/packages/v1/packages_pb';
import { partVersionService, type PartVersionServiceType } from './part-version-probe';

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

/** Data pipelines: scheduled MQL aggregations of an organization's captured data. */
export const DataPipelinesService = {
  typeName: 'viam.app.datapipelines.v1.DataPipelinesService',
  methods: {
    getDataPipeline: { name: 'GetDataPipeline', I: own.GetDataPipelineRequest, O: own.GetDataPipelineResponse, kind: unary },
    listDataPipelines: { name: 'ListDataPipelines', I: own.ListDataPipelinesRequest, O: own.ListDataPipelinesResponse, kind: unary },
    createDataPipeline: { name: 'CreateDataPipeline', I: own.CreateDataPipelineRequest, O: own.CreateDataPipelineResponse, kind: unary },
    renameDataPipeline: { name: 'RenameDataPipeline', I: own.RenameDataPipelineRequest, O: own.RenameDataPipelineResponse, kind: unary },
    deleteDataPipeline: { name: 'DeleteDataPipeline', I: own.DeleteDataPipelineRequest, O: own.DeleteDataPipelineResponse, kind: unary },
    enableDataPipeline: { name: 'EnableDataPipeline', I: own.EnableDataPipelineRequest, O: own.EnableDataPipelineResponse, kind: unary },
    disableDataPipeline: {
      name: 'DisableDataPipeline',
      I: own.DisableDataPipelineRequest,
      O: own.DisableDataPipelineResponse,
      kind: unary,
    },
    listDataPipelineRuns: {
      name: 'ListDataPipelineRuns',
      I: own.ListDataPipelineRunsRequest,
      O: own.ListDataPipelineRunsResponse,
      kind: unary,
    },
  },
} as const;

/** Registry packages: CreatePackage takes the package as a stream (its info, then its contents in chunks). */
export const PackageService = {
  typeName: 'viam.app.packages.v1.PackageService',
  methods: {
    createPackage: { name: 'CreatePackage', I: pkg.CreatePackageRequest, O: pkg.CreatePackageResponse, kind: MethodKind.ClientStreaming },
    getPackage: { name: 'GetPackage', I: pkg.GetPackageRequest, O: pkg.GetPackageResponse, kind: unary },
    listPackages: { name: 'ListPackages', I: pkg.ListPackagesRequest, O: pkg.ListPackagesResponse, kind: unary },
    deletePackage: { name: 'DeletePackage', I: pkg.DeletePackageRequest, O: pkg.DeletePackageResponse, kind: unary },
  },
} as const;

/** A unary method of a descriptor over message classes `<Name>Request` / `<Name>Response` of `Api`. */
type UnaryMethod<Api, Name extends string> = {
  readonly name: Name;
  readonly I: Api[`${Name}Request` & keyof Api];
  readonly O: Api[`${Name}Response` & keyof Api];
  readonly kind: MethodKind.Unary;
};

/** The names N of `Api`'s methods: each has a `<N>Request` and a `<N>Response` message class. */
type MethodNamesOf<Api> = {
  [K in keyof Api & string]: K extends `${infer N}Request` ? (`${N}Response` extends keyof Api ? N : never) : never;
}[keyof Api & string];

/** Descriptor methods keyed by the method name with a lower-case first letter, as connect-es clients expose them. */
type MethodsOf<Api, Names extends string> = { readonly [N in Names as Uncapitalize<N>]: UnaryMethod<Api, N> };

/** The methods of the service's APIs that stream: their messages pair as a unary method's do. */
const STREAMING_METHODS = ['TailRobotPartLogs', 'UploadModuleFile'] as const;
type StreamingMethod = (typeof STREAMING_METHODS)[number];

/**
 * A unary method descriptor for every request/response pair of `api` (`<Name>Request` and
 * `<Name>Response`), streaming methods left out: a call the client makes, or a handler the
 * emulator serves, needs no list of names beside the message classes.
 */
function unaryMethods<Api extends object>(api: Api): MethodsOf<Api, Exclude<MethodNamesOf<Api>, StreamingMethod>> {
  const table = api as Record<string, unknown>;
  const methods: Record<string, unknown> = {};
  for (const key of Object.keys(table)) {
    if (!key.endsWith('Request')) continue;
    const name = key.slice(0, -'Request'.length);
    const response = table[`${name}Response`];
    if (response === undefined || (STREAMING_METHODS as readonly string[]).includes(name)) continue;
    methods[name.charAt(0).toLowerCase() + name.slice(1)] = { name, I: table[key], O: response, kind: unary };
  }
  return methods as MethodsOf<Api, Exclude<MethodNamesOf<Api>, StreamingMethod>>;
}

export interface MLTrainingServiceType {
  readonly typeName: 'viam.app.mltraining.v1.MLTrainingService';
  readonly methods: MethodsOf<Sdk['mlTrainingApi'], MethodNamesOf<Sdk['mlTrainingApi']>>;
}

/**
 * GetRobotPart answers with the part's config twice, as a Struct and as JSON text; its
 * response is read with the Struct left encoded (the text is what the client parses) and
 * written from a Struct the emulator encoded when the config was stored.
 */
type GetRobotPartMethod = {
  readonly name: 'GetRobotPart';
  readonly I: Sdk['appApi']['GetRobotPartRequest'];
  readonly O: typeof GetRobotPartReply;
  readonly kind: MethodKind.Unary;
};

/** UpdateRobotPart's request carries the config as the bytes of its Struct, every key kept. */
type UpdateRobotPartMethod = {
  readonly name: 'UpdateRobotPart';
  readonly I: typeof UpdateRobotPartCall;
  readonly O: Sdk['appApi']['UpdateRobotPartResponse'];
  readonly kind: MethodKind.Unary;
};

/** GetRobotPartHistory with the paging fields the pinned SDK's messages lack (the same wire messages). */
type GetRobotPartHistoryMethod = {
  readonly name: 'GetRobotPartHistory';
  readonly I: typeof own.GetRobotPartHistoryPagedRequest;
  readonly O: typeof own.GetRobotPartHistoryPagedResponse;
  readonly kind: MethodKind.Unary;
};

export interface AppServiceType {
  readonly typeName: 'viam.app.v1.AppService';
  readonly methods: Omit<
    MethodsOf<Sdk['appApi'], Exclude<MethodNamesOf<Sdk['appApi']>, StreamingMethod>>,
    'getRobotPart' | 'getRobotPartHistory' | keyof FragmentMethods | keyof OrganizationMethods
  > & {
    readonly getRobotPart: GetRobotPartMethod;
    readonly getRobotPartHistory: GetRobotPartHistoryMethod;
  } & FragmentMethods &
    RegistryVersionMethods &
    OrganizationMethods;
}

/**
 * The AppService as fleetform's client calls it and the emulator serves it: the same
 * wire, with UpdateRobotPart's config written and read by fleetform's Struct codec.
 */
export interface AppWireServiceType {
  readonly typeName: 'viam.app.v1.AppService';
  readonly methods: Omit<AppServiceType['methods'], 'updateRobotPart'> & { readonly updateRobotPart: UpdateRobotPartMethod };
}

function mlTrainingService(sdk: Sdk): MLTrainingServiceType {
  return { typeName: 'viam.app.mltraining.v1.MLTrainingService', methods: unaryMethods(sdk.mlTrainingApi) };
}

function appService(sdk: Sdk): AppServiceType {
  const getRobotPart: GetRobotPartMethod = {
    name: 'GetRobotPart',
    I: sdk.appApi.GetRobotPartRequest,
    O: GetRobotPartReply,
    kind: unary,
  };
  const getRobotPartHistory: GetRobotPartHistoryMethod = {
    name: 'GetRobotPartHistory',
    I: own.GetRobotPartHistoryPagedRequest,
    O: own.GetRobotPartHistoryPagedResponse,
    kind: unary,
  };
  return {
    typeName: 'viam.app.v1.AppService',
    methods: {
      ...unaryMethods(sdk.appApi),
      getRobotPart,
      getRobotPartHistory,
      ...FRAGMENT_METHODS,
      ...REGISTRY_VERSION_METHODS,
      ...ORGANIZATION_METHODS,
    },
  };
}

function appWireService(sdk: Sdk, app: AppServiceType): AppWireServiceType {
  const updateRobotPart: UpdateRobotPartMethod = {
    name: 'UpdateRobotPart',
    I: UpdateRobotPartCall,
    O: sdk.appApi.UpdateRobotPartResponse,
    kind: unary,
  };
  return { typeName: app.typeName, methods: { ...app.methods, updateRobotPart } };
}

/** The header naming the machine part a call to a machine's own services is for (its FQDN or id), as the service's dialing carries the host. */
export const MACHINE_HOST_HEADER = 'rpc-host';

/**
 * The machine's own `viam.robot.v1.RobotService` as the emulator's machines serve it:
 * GetMachineStatus (with module statuses, which older SDK messages lack) and GetOperations.
 */
export interface RobotStatusServiceType {
  readonly typeName: 'viam.robot.v1.RobotService';
  readonly methods: {
    readonly getMachineStatus: {
      readonly name: 'GetMachineStatus';
      readonly I: Sdk['robotApi']['GetMachineStatusRequest'];
      readonly O: typeof MachineStatusReply;
      readonly kind: MethodKind.Unary;
    };
    readonly getOperations: {
      readonly name: 'GetOperations';
      readonly I: Sdk['robotApi']['GetOperationsRequest'];
      readonly O: Sdk['robotApi']['GetOperationsResponse'];
      readonly kind: MethodKind.Unary;
    };
  };
}

function robotStatusService(sdk: Sdk): RobotStatusServiceType {
  return {
    typeName: 'viam.robot.v1.RobotService',
    methods: {
      getMachineStatus: { name: 'GetMachineStatus', I: sdk.robotApi.GetMachineStatusRequest, O: MachineStatusReply, kind: unary },
      // What the SDK's robot client calls to check its connection (and as its heartbeat).
      getOperations: { name: 'GetOperations', I: sdk.robotApi.GetOperationsRequest, O: sdk.robotApi.GetOperationsResponse, kind: unary },
    },
  };
}

export type AuthServiceType = typeof AuthService;
export type DatasetServiceType = typeof DatasetService;
export type PackageServiceType = typeof PackageService;
export type DataPipelinesServiceType = typeof DataPipelinesService;

export interface Services {
  readonly sdk: Sdk;
  readonly auth: AuthServiceType;
  readonly dataset: DatasetServiceType;
  readonly mlTraining: MLTrainingServiceType;
  readonly app: AppServiceType;
  readonly appWire: AppWireServiceType;
  /** GetRobotPart read for the part's version alone. */
  readonly partVersion: PartVersionServiceType;
  readonly robotStatus: RobotStatusServiceType;
  readonly packages: PackageServiceType;
  readonly dataPipelines: DataPipelinesServiceType;
}

let cached: Promise<Services> | undefined;

/** The descriptors of every service fleetform speaks, built once. */
export function loadServices(): Promise<Services> {
  cached ??= loadSdk().then((sdk) => {
    const app = appService(sdk);
    return {
      sdk,
      auth: AuthService,
      dataset: DatasetService,
      mlTraining: mlTrainingService(sdk),
      app,
      appWire: appWireService(sdk, app),
      partVersion: partVersionService(sdk),
      robotStatus: robotStatusService(sdk),
      packages: PackageService,
      dataPipelines: DataPipelinesService,
    };
  });
  return cached;
}
