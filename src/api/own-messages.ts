/**
 * Messages the official SDK does not export, declared from the service's field tables
 * (proto.rpc.v1.AuthService and viam.app.dataset.v1.DatasetService). Field numbers are
 * the wire contract: do not renumber.
 */
import { proto3, Timestamp, ScalarType } from '@bufbuild/protobuf';

export const Credentials = proto3.makeMessageType('proto.rpc.v1.Credentials', () => [
  { no: 1, name: 'type', kind: 'scalar', T: ScalarType.STRING },
  { no: 2, name: 'payload', kind: 'scalar', T: ScalarType.STRING },
]);
export const AuthenticateRequest = proto3.makeMessageType('proto.rpc.v1.AuthenticateRequest', () => [
  { no: 1, name: 'entity', kind: 'scalar', T: ScalarType.STRING },
  { no: 2, name: 'credentials', kind: 'message', T: Credentials },
]);
export const AuthenticateResponse = proto3.makeMessageType('proto.rpc.v1.AuthenticateResponse', () => [
  { no: 1, name: 'access_token', kind: 'scalar', T: ScalarType.STRING },
]);

export const Dataset = proto3.makeMessageType('viam.app.dataset.v1.Dataset', () => [
  { no: 1, name: 'id', kind: 'scalar', T: ScalarType.STRING },
  { no: 2, name: 'name', kind: 'scalar', T: ScalarType.STRING },
  { no: 3, name: 'organization_id', kind: 'scalar', T: ScalarType.STRING },
  { no: 4, name: 'time_created', kind: 'message', T: Timestamp },
]);
export const CreateDatasetRequest = proto3.makeMessageType('viam.app.dataset.v1.CreateDatasetRequest', () => [
  { no: 1, name: 'name', kind: 'scalar', T: ScalarType.STRING },
  { no: 2, name: 'organization_id', kind: 'scalar', T: ScalarType.STRING },
]);
export const CreateDatasetResponse = proto3.makeMessageType('viam.app.dataset.v1.CreateDatasetResponse', () => [
  { no: 1, name: 'id', kind: 'scalar', T: ScalarType.STRING },
]);
export const DeleteDatasetRequest = proto3.makeMessageType('viam.app.dataset.v1.DeleteDatasetRequest', () => [
  { no: 1, name: 'id', kind: 'scalar', T: ScalarType.STRING },
]);
export const DeleteDatasetResponse = proto3.makeMessageType('viam.app.dataset.v1.DeleteDatasetResponse', () => []);
export const ListDatasetsByOrganizationIDRequest = proto3.makeMessageType(
  'viam.app.dataset.v1.ListDatasetsByOrganizationIDRequest',
  () => [{ no: 1, name: 'organization_id', kind: 'scalar', T: ScalarType.STRING }],
);
export const ListDatasetsByOrganizationIDResponse = proto3.makeMessageType(
  'viam.app.dataset.v1.ListDatasetsByOrganizationIDResponse',
  () => [{ no: 1, name: 'datasets', kind: 'message', T: Dataset, repeated: true }],
);
export const ListDatasetsByIDsRequest = proto3.makeMessageType('viam.app.dataset.v1.ListDatasetsByIDsRequest', () => [
  { no: 1, name: 'ids', kind: 'scalar', T: ScalarType.STRING, repeated: true },
]);
export const ListDatasetsByIDsResponse = proto3.makeMessageType('viam.app.dataset.v1.ListDatasetsByIDsResponse', () => [
  { no: 1, name: 'datasets', kind: 'message', T: Dataset, repeated: true },
]);
