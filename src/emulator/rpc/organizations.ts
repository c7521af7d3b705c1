/** Creating an organization with a location, a dataset and an owner API key (seeding and controls). */
import { generateApiKeySecret, hashApiKey } from '../auth/keys';
import type { EmulatorCredentials } from '../credentials';
import type { Db } from '../db/database';
import { insertApiKey, insertLocation, insertOrganization, organizationByNamespace } from '../store/accounts';
import { DatasetType } from '../../api/own-messages';
import { insertDataset } from '../store/datasets';
import { newId } from '../store/statements';
import { alreadyExists, invalidArgument } from './errors';

const NAMESPACE = /^[a-z0-9][a-z0-9-]*$/;

/** A new organization-owner API key; the secret is returned once and stored hashed. */
export function createOwnerKey(db: Db, organizationId: string, name: string, now: number): { apiKeyId: string; apiKey: string } {
  const apiKey = generateApiKeySecret();
  const apiKeyId = newId();
  insertApiKey(db, { id: apiKeyId, name, ...hashApiKey(apiKey), createdOn: now }, [
    { role: 'owner', resourceType: 'organization', resourceId: organizationId, organizationId },
  ]);
  return { apiKeyId, apiKey };
}

export function createOrganization(
  db: Db,
  req: { name: string; publicNamespace: string; locationName?: string; datasetName?: string },
  now: number,
): EmulatorCredentials {
  const name = req.name.trim();
  if (name === '') throw invalidArgument('name is required');
  if (req.publicNamespace !== '' && !NAMESPACE.test(req.publicNamespace)) {
    throw invalidArgument('public_namespace: use lowercase letters, digits and "-"');
  }
  return db
    .transaction(() => {
      if (req.publicNamespace !== '' && organizationByNamespace(db, req.publicNamespace)) {
        throw alreadyExists(`public namespace ${req.publicNamespace} is taken`);
      }
      const org = insertOrganization(db, name, req.publicNamespace, now);
      const loc = insertLocation(db, org.id, req.locationName ?? `${name} location`, now);
      const ds = insertDataset(db, org.id, req.datasetName ?? 'default', DatasetType.BINARY_DATA, now);
      const key = createOwnerKey(db, org.id, `${name} owner key`, now);
      return { ...key, organizationId: org.id, locationId: loc.id, datasetId: ds.id };
    })
    .immediate();
}
