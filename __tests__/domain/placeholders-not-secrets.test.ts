/**
 * A value that is wholly an environment placeholder is filled in by the machine from its own
 * environment: it is no secret wherever it sits. Only literal values at the declared secret
 * paths (and secret-looking module env entries) are secrets.
 */
import { configSecrets, isEnvironmentPlaceholder, isSecretEnvEntry } from '../../src/domain';

test('a whole `${NAME}` or `${environment.NAME}` is a placeholder; text around one, or another key, is not', () => {
  for (const value of ['${RDK_AUTH_API_KEY}', '${environment.API_KEY}', '${environment.my-key}', '${_X1}'])
    expect(isEnvironmentPlaceholder(value)).toBe(true);
  for (const value of [
    '${RDK_AUTH_API_KEY}2',
    'x${environment.A}',
    '${environment.A}${environment.B}',
    '${packages.model}',
    '${1ABC}',
    '${}',
    'literal',
    '',
    5,
    null,
    undefined,
  ])
    expect(isEnvironmentPlaceholder(value)).toBe(false);
});

test('configSecrets finds literal values at every declared path and no placeholder there', () => {
  const config = {
    remotes: [
      { name: 'a', auth: { credentials: { type: 'api-key', payload: '${RDK_AUTH_API_KEY}' } }, secret: '${environment.LOC}' },
      { name: 'b', auth: { credentials: { type: 'api-key', payload: '${RDK_AUTH_API_KEY}2' } }, secret: 'location-secret' },
    ],
    auth: { handlers: [{ type: 'api-key', config: { k1: '${environment.K1}', k2: 'key-2', keys: ['k1', 'k2'] } }] },
    agent: {
      network_configuration: { hotspot_password: '${environment.HOTSPOT}' },
      additional_networks: { shop: { psk: '${SHOP_PSK}' }, barn: { psk: 'barn-psk' } },
    },
    processes: [{ id: 'p', name: 'x', env: { TOKEN: '${environment.TOKEN}', OTHER: 'other-value' } }],
  };
  expect(configSecrets(config).map((s) => [s.path, s.value])).toEqual([
    ['remotes[1].auth.credentials.payload', '${RDK_AUTH_API_KEY}2'],
    ['remotes[1].secret', 'location-secret'],
    ['auth.handlers[0].config.k2', 'key-2'],
    ['agent.additional_networks.barn.psk', 'barn-psk'],
    ['processes[0].env.OTHER', 'other-value'],
  ]);
});

test('a module env entry is a secret when its name looks secret and its value is not wholly a placeholder', () => {
  expect(isSecretEnvEntry('API_TOKEN', 'abc')).toBe(true);
  expect(isSecretEnvEntry('API_TOKEN', '${environment.API_TOKEN}')).toBe(false);
  expect(isSecretEnvEntry('API_TOKEN', 'Bearer ${environment.API_TOKEN}')).toBe(true);
  expect(isSecretEnvEntry('REGION', 'eu')).toBe(false);
});
