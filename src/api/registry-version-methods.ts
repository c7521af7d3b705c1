/**
 * The AppService's calls deprecating one version of a registry item, which the pinned SDK
 * lacks, over fleetform's own messages (proto/viam/app/v1/module_version_status.proto).
 */
import { MethodKind } from '@bufbuild/protobuf';
import * as m from './generated/viam/app/v1/module_version_status_pb';

const unary = MethodKind.Unary;

export const REGISTRY_VERSION_METHODS = {
  deprecateRegistryItemVersion: {
    name: 'DeprecateRegistryItemVersion',
    I: m.DeprecateRegistryItemVersionRequest,
    O: m.DeprecateRegistryItemVersionResponse,
    kind: unary,
  },
  undeprecateRegistryItemVersion: {
    name: 'UndeprecateRegistryItemVersion',
    I: m.UndeprecateRegistryItemVersionRequest,
    O: m.UndeprecateRegistryItemVersionResponse,
    kind: unary,
  },
} as const;

export type RegistryVersionMethods = typeof REGISTRY_VERSION_METHODS;
