/**
 * The AppService's GetOrganization and UpdateOrganization over fleetform's own messages
 * (proto/viam/app/v1/organization_defaults.proto): the same wire as the service's, with the
 * organization's default fragments, which the pinned SDK's messages lack.
 */
import { MethodKind } from '@bufbuild/protobuf';
import * as o from './generated/viam/app/v1/organization_defaults_pb';

const unary = MethodKind.Unary;

export const ORGANIZATION_METHODS = {
  getOrganization: { name: 'GetOrganization', I: o.GetOrganizationRequest, O: o.GetOrganizationResponse, kind: unary },
  updateOrganization: { name: 'UpdateOrganization', I: o.UpdateOrganizationRequest, O: o.UpdateOrganizationResponse, kind: unary },
} as const;

export type OrganizationMethods = typeof ORGANIZATION_METHODS;

export * as organizationMessages from './generated/viam/app/v1/organization_defaults_pb';
