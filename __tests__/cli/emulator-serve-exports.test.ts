import { exportLines } from '../../src/cli/commands/emulator-serve-run';

test('serve says what another shell exports, reading the key from its file rather than printing it', () => {
  const lines = exportLines('http://127.0.0.1:8080', '/data/credentials.json');
  expect(lines).toEqual([
    'to use it from another shell:',
    '  export FLEETFORM_ENDPOINT=http://127.0.0.1:8080',
    `  export FLEETFORM_API_KEY_ID="$(node -p 'require("/data/credentials.json").apiKeyId')"`,
    `  export FLEETFORM_API_KEY="$(node -p 'require("/data/credentials.json").apiKey')"`,
  ]);
});
