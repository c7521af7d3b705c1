import type { JsonObject } from '../../src/engine/json';
import { attributesOfView } from '../../src/engine/kind';
import { defaultKinds } from '../../src/engine/kinds';
import { machineKind } from '../../src/engine/kinds/machine';
import { withSecretEnv } from '../../src/engine/kinds/machine-secrets';

test('attributesOf: a secret-looking name is secret without a prior; a flagged one only with it', () => {
  const view: JsonObject = {
    name: 'm',
    location_id: 'loc',
    config: {
      modules: {
        cam: { type: 'registry', name: 'cam', module_id: 'a:cam', version: '1.0.0', env: { API_KEY: 'k', REGION: 'eu', PATH: '/bin' } },
      },
    },
  };
  const fresh = attributesOfView(machineKind, view, undefined);
  expect(fresh.secret_env).toEqual({ 'cam.API_KEY': 'k' });
  // The view has no components or services: nor has the config.
  expect(JSON.parse(fresh.config as string)).toEqual({
    modules: [{ type: 'registry', name: 'cam', module_id: 'a:cam', version: '1.0.0', env: { REGION: 'eu', PATH: '/bin' } }],
  });
  const flagged = attributesOfView(machineKind, view, { secret_env: { 'cam.REGION': 'x' } });
  expect(flagged.secret_env).toEqual({ 'cam.API_KEY': 'k', 'cam.REGION': 'eu' });
  expect(JSON.parse(flagged.config as string).modules[0].env).toEqual({ PATH: '/bin' });
  expect(view.config).toEqual({
    modules: {
      cam: { type: 'registry', name: 'cam', module_id: 'a:cam', version: '1.0.0', env: { API_KEY: 'k', REGION: 'eu', PATH: '/bin' } },
    },
  });
  const dataset = defaultKinds().get('fleetform_dataset');
  if (!dataset) throw new Error('no dataset kind');
  expect(attributesOfView(dataset, { name: 'boxes', organization_id: 'org', id: 'ds-1' }, undefined)).toEqual({
    name: 'boxes',
    organization_id: 'org',
  });
});

test('secret_env merges into the modules env; entries naming no module of config are problems', () => {
  const config = {
    modules: [
      { type: 'registry', name: 'cam', env: { PATH: '/bin' } },
      { type: 'local', name: 'arm' },
    ],
  };
  const merged = withSecretEnv(config, { 'cam.API_KEY': 'k', 'arm.TOKEN': 't', 'gone.X': 'x', nodot: 'y' });
  expect(merged.config).toEqual({
    modules: [
      { type: 'registry', name: 'cam', env: { PATH: '/bin', API_KEY: 'k' } },
      { type: 'local', name: 'arm', env: { TOKEN: 't' } },
    ],
  });
  expect(merged.problems.map((p) => p.path)).toEqual(['secret_env.nodot', 'secret_env.gone']);
  expect(config.modules[0]?.env).toEqual({ PATH: '/bin' });
  expect(withSecretEnv(config, undefined).config).toBe(config);
});
