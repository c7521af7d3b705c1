import { accessSettings } from '../../src/cli/dashboard-access';
import { InputError } from '../../src/domain/errors';

const TOKEN = 'a-token-of-enough-length';

test('--allow-host takes host names; a URL or a port is refused naming the flag', () => {
  expect(accessSettings({ allowHost: ['fleet.example.com', '10.0.0.5'] }, TOKEN)).toEqual({
    token: TOKEN,
    allowHosts: ['fleet.example.com', '10.0.0.5'],
    readersNeedToken: false,
  });
  for (const bad of ['https://fleet.example.com', 'fleet.example.com:443', 'a/b']) {
    expect(() => accessSettings({ allowHost: [bad] }, TOKEN)).toThrow(InputError);
    expect(() => accessSettings({ allowHost: [bad] }, TOKEN)).toThrow(/is not a host name/);
  }
});

test('--readers-need-token without a token is refused at start, saying how to set one', () => {
  let error: unknown;
  try {
    accessSettings({ allowHost: [], readersNeedToken: true }, undefined);
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(InputError);
  expect((error as InputError).format()).toMatch(/FLEETFORM_DASHBOARD_TOKEN is not set[\s\S]*openssl rand/);
  expect(accessSettings({ allowHost: [], readersNeedToken: true }, TOKEN).readersNeedToken).toBe(true);
});
