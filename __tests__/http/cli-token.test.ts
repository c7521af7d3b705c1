/**
 * `fleetform reconcile approve|heal|override` send the token from FLEETFORM_DASHBOARD_TOKEN
 * and JSON: taken with it; refused without it, with a message naming the variable.
 */
import * as os from 'node:os';
import { fleetform } from '../e2e/fleet-fixture';
import { startSurfaces, TOKEN, type Surfaces } from './surfaces';

jest.setTimeout(60_000);

let s: Surfaces;
beforeAll(async () => {
  s = await startSurfaces();
});
afterAll(() => s.close());

const reconcile = (token: string, ...args: string[]) =>
  fleetform(os.tmpdir(), ['reconcile', ...args, '--server', s.reconciler.url], { FLEETFORM_DASHBOARD_TOKEN: token });

test('without the token the commands are refused, saying which variable holds it; nothing is done', async () => {
  for (const args of [['approve', 'fleet'], ['heal'], ['override', '--open', '--for', '1h']]) {
    const r = await reconcile('', ...args);
    expect([args[0], r.code]).toEqual([args[0], 1]);
    expect(r.stderr).toMatch(/actions need the token/);
    expect(r.stderr).toMatch(/FLEETFORM_DASHBOARD_TOKEN/);
  }
  expect(s.reconciler.handle.asked).toEqual([]);
});

test('with the token approve, heal and override are taken; an override past 7 days is refused', async () => {
  expect((await reconcile(TOKEN, 'approve', 'fleet')).code).toBe(0);
  expect((await reconcile(TOKEN, 'heal')).code).toBe(0);
  expect((await reconcile(TOKEN, 'override', '--open', '--for', '1h')).code).toBe(0);
  const long = await reconcile(TOKEN, 'override', '--open', '--for', '99999999h');
  expect(long.code).toBe(1);
  expect(long.stderr).toMatch(/at most 168h/);
  expect((await reconcile(TOKEN, 'status')).stdout).toMatch(/stack fleet/);
  expect(s.reconciler.handle.asked).toEqual(['approve fleet', 'heal', 'override open until']);
});
