/** ListKeys: an organization's API keys by id and name with their grants; a key's value is never answered. */
import { Code, ConnectError } from '@connectrpc/connect';
import { loadServices } from '../../src/api/services';
import { useEmulator } from './fixture';
import { clientOf } from './helpers';

const fx = useEmulator();

test("the organization's keys are listed by id and name with their grants, without their values", async () => {
  const services = await loadServices();
  const app = await clientOf(fx.emulator, services.app);
  const { organizationId, apiKeyId, apiKey } = fx.emulator.credentials;
  const { apiKeys } = await app.listKeys({ orgId: organizationId });
  const own = apiKeys.find((k) => k.apiKey?.id === apiKeyId);
  expect(own?.apiKey?.name).not.toBe('');
  expect(own?.authorizations.map((a) => [a.resourceType, a.resourceId, a.authorizationId])).toEqual([
    ['organization', organizationId, 'organization_owner'],
  ]);
  expect(JSON.stringify(apiKeys.map((k) => k.toJson()))).not.toContain(apiKey);
  const refused = await app.listKeys({ orgId: 'no-such-organization' }).then(
    () => undefined,
    (err: unknown) => ConnectError.from(err).code,
  );
  expect(refused).toBe(Code.PermissionDenied);
});
