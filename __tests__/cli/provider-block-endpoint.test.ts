import { checkBlockEndpoint } from '../../src/cli/provider-main';
import { EndpointError } from '../../src/domain/service-endpoint';

function refusal(run: () => void): EndpointError | undefined {
  try {
    run();
  } catch (err) {
    if (err instanceof EndpointError) return err;
    throw err;
  }
  return undefined;
}

test("a provider block's endpoint without http:// is refused as the block's, with the URL it means", () => {
  const err = refusal(() => checkBlockEndpoint({ endpoint: '127.0.0.1:8080' }, {}));
  expect(err?.path).toBe('provider "fleetform": endpoint');
  expect(err?.message).toBe('"127.0.0.1:8080" has no http:// or https:// in front');
  expect(err?.hint).toBe('write it as http://127.0.0.1:8080 (http for an emulator on this machine)');
});

test('an endpoint the block took from FLEETFORM_ENDPOINT is left to the check naming that variable; a URL passes', () => {
  expect(refusal(() => checkBlockEndpoint({ endpoint: 'app.example.com' }, { FLEETFORM_ENDPOINT: 'app.example.com' }))).toBeUndefined();
  expect(refusal(() => checkBlockEndpoint({ endpoint: 'https://app.example.com' }, {}))).toBeUndefined();
  expect(refusal(() => checkBlockEndpoint({}, {}))).toBeUndefined();
});
