import { DASHBOARD_TOKEN_ENV, dashboardToken, parseListen } from '../../src/cli/commands/dashboard';
import { InputError } from '../../src/domain/errors';

test('--listen takes host:port, IPv6 in brackets, and names the flag when it is wrong', () => {
  expect(parseListen('127.0.0.1:8420')).toEqual({ host: '127.0.0.1', port: 8420 });
  expect(parseListen('[::1]:0')).toEqual({ host: '::1', port: 0 });
  for (const bad of ['8420', 'localhost', 'host:99999', ':80']) {
    expect(() => parseListen(bad)).toThrow(InputError);
    try {
      parseListen(bad);
    } catch (err) {
      expect((err as InputError).path).toBe('--listen');
      expect((err as InputError).hint).toMatch(/127\.0\.0\.1:8420/);
    }
  }
  expect(DASHBOARD_TOKEN_ENV).toBe('FLEETFORM_DASHBOARD_TOKEN');
});

test('the token comes from the environment: none is read-only, a short one is refused', () => {
  expect(dashboardToken({})).toBeUndefined();
  expect(dashboardToken({ [DASHBOARD_TOKEN_ENV]: '  ' })).toBeUndefined();
  expect(dashboardToken({ [DASHBOARD_TOKEN_ENV]: ' 0123456789abcdef ' })).toBe('0123456789abcdef');
  expect(() => dashboardToken({ [DASHBOARD_TOKEN_ENV]: 'short' })).toThrow(/too short \(5 characters\)/);
});
