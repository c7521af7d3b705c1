/**
 * The part of `viam.app.data.v1.DataService` fleetform speaks: ExportTabularData, which
 * streams one source's captured points (a part, a resource by name and API, a method) over
 * a time window, over the official SDK's message classes.
 */
import { MethodKind } from '@bufbuild/protobuf';
import { loadSdk, type Sdk } from './sdk';

export interface DataServiceType {
  readonly typeName: 'viam.app.data.v1.DataService';
  readonly methods: {
    readonly exportTabularData: {
      readonly name: 'ExportTabularData';
      readonly I: Sdk['dataApi']['ExportTabularDataRequest'];
      readonly O: Sdk['dataApi']['ExportTabularDataResponse'];
      readonly kind: MethodKind.ServerStreaming;
    };
  };
}

let cached: Promise<DataServiceType> | undefined;

/** The descriptor, built once the SDK is loaded. */
export function loadDataService(): Promise<DataServiceType> {
  cached ??= loadSdk().then((sdk) => ({
    typeName: 'viam.app.data.v1.DataService' as const,
    methods: {
      exportTabularData: {
        name: 'ExportTabularData' as const,
        I: sdk.dataApi.ExportTabularDataRequest,
        O: sdk.dataApi.ExportTabularDataResponse,
        kind: MethodKind.ServerStreaming as const,
      },
    },
  }));
  return cached;
}
