/**
 * `viam.app.v1.AppService`, the part machine configuration needs: organizations,
 * locations, machines and parts (config with `last_known_update` optimistic concurrency,
 * and the history of every config write), the registry reads (trained models included),
 * and API keys.
 */
import type { ServiceImpl } from '@connectrpc/connect';
import type { AppWireServiceType } from '../../api/services';
import { generateApiKeySecret, hashApiKey } from '../auth/keys';
import { isOrganizationOwner, organizationsOf, type Principal } from '../auth/principal';
import * as accounts from '../store/accounts';
import { newId } from '../store/statements';
import { locationFor, organizationFor, robotFor } from './access';
import { principalOf, timestamp, type Backend } from './context';
import { invalidArgument, permissionDenied, required } from './errors';
import { liveMachineHandlers } from './live-machines';
import { fragmentHandlers } from './fragments';
import { locationHandlers } from './locations';
import { organizationHandlers, organizationMessage } from './organization-settings';
import { robotHandlers } from './robots';
import { settleTrainingJobs } from './ml-training';
import { setVersionDeprecation } from '../store/registry';
import { findRegistryItem } from '../logic/registry-items';
import { ownedVersion, registryItemMessage, registryModuleMessage, visibleRegistryItem } from './registry';
import { listRegistryItems } from './registry-listing';
import { findTrainedModel, trainedModelMessage } from './trained-models';

export function appService(backend: Backend): Partial<ServiceImpl<AppWireServiceType>> {
  const { db } = backend;
  return {
    ...liveMachineHandlers(backend),
    ...fragmentHandlers(backend),
    ...organizationHandlers(backend),
    ...locationHandlers(backend),
    ...robotHandlers(backend),

    listOrganizations(_req, ctx) {
      const p = principalOf(ctx);
      return { organizations: accounts.listOrganizations(db, organizationsOf(p)).map(organizationMessage) };
    },

    /**
     * The organization's API keys with their grants. The key's value is not kept (only a
     * salted hash of it), so it is never answered: `key` is empty.
     */
    listKeys(req, ctx) {
      const org = organizationFor(db, principalOf(ctx), req.orgId, 'write');
      return {
        apiKeys: accounts.keysOfOrganization(db, org.id).map((k) => ({
          apiKey: { id: k.id, key: '', name: k.name, createdOn: timestamp(k.createdOn) },
          authorizations: accounts
            .grantsOf(db, k.id)
            .filter((g) => g.organizationId === org.id)
            .map((g) => ({
              authorizationType: 'role',
              authorizationId: `${g.resourceType}_${g.role}`,
              resourceType: g.resourceType,
              resourceId: g.resourceId,
              orgId: g.organizationId,
            })),
        })),
      };
    },

    deprecateRegistryItemVersion(req, ctx) {
      const { item, version } = ownedVersion(db, principalOf(ctx), req.itemId, req.version);
      setVersionDeprecation(db, item.itemId, version, req.message, backend.now());
      return {};
    },

    undeprecateRegistryItemVersion(req, ctx) {
      const { item, version } = ownedVersion(db, principalOf(ctx), req.itemId, req.version);
      setVersionDeprecation(db, item.itemId, version, undefined, backend.now());
      return {};
    },

    getModule(req, ctx) {
      const item = visibleRegistryItem(db, principalOf(ctx), required(req.moduleId, 'module_id'), 'module');
      return { module: registryModuleMessage(db, item, backend.services.sdk) };
    },

    getRegistryItem(req, ctx) {
      const p = principalOf(ctx);
      const itemId = required(req.itemId, 'item_id');
      if (!findRegistryItem(db, itemId)) {
        // Models that jobs trained are registry items too; jobs due to complete complete first.
        settleTrainingJobs(backend);
        const model = findTrainedModel(db, p, itemId);
        if (model) return { item: trainedModelMessage(model) };
      }
      return { item: registryItemMessage(db, visibleRegistryItem(db, p, itemId), backend.services.sdk) };
    },

    listRegistryItems(req, ctx) {
      const p = principalOf(ctx);
      if (req.organizationId) organizationFor(db, p, req.organizationId, 'read');
      settleTrainingJobs(backend);
      const listing = listRegistryItems(
        db,
        p,
        {
          ...(req.organizationId ? { organizationId: req.organizationId } : {}),
          types: req.types,
          visibilities: req.visibilities,
          statuses: req.statuses,
          ...(req.searchTerm === undefined ? {} : { searchTerm: req.searchTerm }),
          publicNamespaces: req.publicNamespaces,
        },
        backend.services.sdk,
      );
      return { items: listing };
    },

    createKey(req, ctx) {
      const p = principalOf(ctx);
      if (req.authorizations.length === 0) throw invalidArgument('authorizations: at least one authorization is required');
      const grants = req.authorizations.map((a, i) => grantFromAuthorization(db, p, a, `authorizations[${i}]`));
      const secret = generateApiKeySecret();
      const id = newId();
      const now = backend.now();
      accounts.insertApiKey(db, { id, name: req.name || new Date(now).toISOString(), ...hashApiKey(secret), createdOn: now }, grants);
      return { id, key: secret };
    },
  };
}

const ROLES = ['owner', 'operator'] as const;
const RESOURCE_TYPES = ['organization', 'location', 'robot'] as const;

/**
 * A grant from an `Authorization` (`authorization_type` "role", `authorization_id`
 * `<resource type>_<role>` or `<role>`); the caller must own the resource.
 */
function grantFromAuthorization(
  db: Backend['db'],
  p: Principal,
  a: { authorizationType: string; authorizationId: string; resourceType: string; resourceId: string; organizationId: string },
  path: string,
): accounts.Grant {
  if (a.authorizationType !== '' && a.authorizationType !== 'role') {
    throw invalidArgument(`${path}.authorization_type: unknown authorization type ${JSON.stringify(a.authorizationType)}; use "role"`);
  }
  const resourceType = RESOURCE_TYPES.find((t) => t === a.resourceType);
  if (!resourceType) throw invalidArgument(`${path}.resource_type: use organization, location or robot`);
  const roleText = a.authorizationId.startsWith(`${resourceType}_`) ? a.authorizationId.slice(resourceType.length + 1) : a.authorizationId;
  const role = ROLES.find((r) => r === roleText);
  if (!role) throw invalidArgument(`${path}.authorization_id: use ${resourceType}_owner or ${resourceType}_operator`);
  let organizationId: string;
  if (resourceType === 'organization') organizationId = organizationFor(db, p, a.resourceId, 'write').id;
  else if (resourceType === 'location') organizationId = locationFor(db, p, a.resourceId, 'write').organizationId;
  else organizationId = robotFor(db, p, a.resourceId, 'write').organizationId;
  if (a.organizationId !== '' && a.organizationId !== organizationId) {
    throw invalidArgument(`${path}.organization_id: ${a.resourceType} ${a.resourceId} belongs to organization ${organizationId}`);
  }
  if (resourceType === 'organization' && !isOrganizationOwner(p, organizationId)) {
    throw permissionDenied(`owner permission required on organization ${organizationId}`);
  }
  return { role, resourceType, resourceId: a.resourceId, organizationId };
}
