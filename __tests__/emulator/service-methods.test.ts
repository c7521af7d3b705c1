/**
 * The service descriptors have a unary method for every request/response pair of the
 * service's messages, so a new call needs no list of names; the emulator answers a method
 * it does not serve with UNIMPLEMENTED, and streaming methods are not described as unary.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { loadServices } from '../../src/api/services';
import { useEmulator } from './fixture';
import { clientOf } from './helpers';

const fx = useEmulator();

test('every request/response pair of the app and training APIs is a method, named as the service names it; streaming ones are left out', async () => {
  const services = await loadServices();
  const app = services.app.methods as Readonly<Record<string, { name: string; I: unknown; O: unknown }>>;
  expect(app.updateLocation?.name).toBe('UpdateLocation');
  expect(app.updateLocation?.I).toBe(services.sdk.appApi.UpdateLocationRequest);
  expect(app.getAppBranding?.name).toBe('GetAppBranding');
  expect(app.tailRobotPartLogs).toBeUndefined();
  expect(app.uploadModuleFile).toBeUndefined();
  for (const [key, method] of Object.entries(app)) expect(key).toBe(method.name.charAt(0).toLowerCase() + method.name.slice(1));
  expect(services.mlTraining.methods.listSupportedContainers.name).toBe('ListSupportedContainers');
});

test('a described method the emulator does not serve answers UNIMPLEMENTED; a served one answers', async () => {
  const services = await loadServices();
  const app = await clientOf(fx.emulator, services.app);
  const { organizationId } = fx.emulator.credentials;
  expect((await app.listLocations({ organizationId })).locations.length).toBeGreaterThan(0);
  const refused = await app.getAppBranding({ publicNamespace: 'acme' }).then(
    () => undefined,
    (err: unknown) => ConnectError.from(err).code,
  );
  expect(refused).toBe(Code.Unimplemented);
});
