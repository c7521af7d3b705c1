import { checkServiceEndpoint, EndpointError, endpointWithScheme } from '../../src/domain/service-endpoint';

function refusal(text: string, source = 'FLEETFORM_ENDPOINT'): EndpointError {
  try {
    checkServiceEndpoint(text, source);
  } catch (err) {
    if (err instanceof EndpointError) return err;
    throw err;
  }
  throw new Error(`${text} was taken`);
}

test('http and https URLs are taken', () => {
  for (const ok of ['http://127.0.0.1:8080', 'https://app.example.com:443', 'https://app.example.com', 'http://[::1]:8080'])
    expect(() => checkServiceEndpoint(ok, 'FLEETFORM_ENDPOINT')).not.toThrow();
});

test('an endpoint without its scheme is refused with the URL it means: http on this machine, https elsewhere', () => {
  const local = refusal('127.0.0.1:8080');
  expect(local.message).toBe('"127.0.0.1:8080" has no http:// or https:// in front');
  expect(local.path).toBe('FLEETFORM_ENDPOINT');
  expect(local.hint).toBe('write it as http://127.0.0.1:8080 (http for an emulator on this machine)');
  const remote = refusal('app.example.com:443', 'stack fleet: FleetProvider.endpoint');
  expect(remote.path).toBe('stack fleet: FleetProvider.endpoint');
  expect(remote.hint).toBe('write it as https://app.example.com:443 (https for a remote service)');
  expect(refusal('localhost:8080').hint).toContain('http://localhost:8080');
});

test('another scheme is refused too', () => {
  const grpc = refusal('grpc://127.0.0.1:8080');
  expect(grpc.message).toContain('is a grpc:// address');
  expect(grpc.hint).toBe('write it as http://127.0.0.1:8080');
});

test('the scheme guessed', () => {
  expect(endpointWithScheme('[::1]:8080')).toBe('http://[::1]:8080');
  expect(endpointWithScheme('fleet.example.org')).toBe('https://fleet.example.org');
});
