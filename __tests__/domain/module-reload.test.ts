/** A module's hot reload keys the service holds: kept by a write from code that does not declare them. */
import { heldReloadMessage, withHeldReloads } from '../../src/domain/module-reload';
import { machineConfigCode } from '../../src/engine/adopt/machine-code';

const code = { type: 'registry', name: 'sensors', module_id: 'acme:sensors', version: '1.2.5' };
const reloaded = {
  ...code,
  version: 'latest-with-prerelease',
  reload_enabled: true,
  reload_path: '/home/dev/sensors/module.tar.gz',
  reload_user: 'dev@example.com',
  reload_time: '2026-11-30T10:00:00Z',
  reload_annotation: 'trying the new filter',
};

describe('module hot reload keys', () => {
  test('a reload in place keeps its keys and version, and says so', () => {
    const { modules, held } = withHeldReloads([code], [reloaded]);
    expect(modules).toEqual([reloaded]);
    expect(held).toEqual([
      { module: 'sensors', user: 'dev@example.com', time: '2026-11-30T10:00:00Z', keptVersion: 'latest-with-prerelease' },
    ]);
    expect(heldReloadMessage(held[0] as (typeof held)[number])).toBe(
      'a hot reload by dev@example.com at 2026-11-30T10:00:00Z is in place (version latest-with-prerelease); left as it is',
    );
  });

  test('once the developer clears reload_enabled, the version code declares wins and the other keys stay', () => {
    const cleared = { ...reloaded, reload_enabled: false };
    const { modules, held } = withHeldReloads([code], [cleared]);
    expect(modules).toEqual([{ ...cleared, version: '1.2.5' }]);
    expect(held).toEqual([]);
  });

  test("keys code declares are code's: reload_enabled declared false ends the reload", () => {
    const { modules, held } = withHeldReloads([{ ...code, reload_enabled: false }], [reloaded]);
    expect(modules[0]).toMatchObject({ version: '1.2.5', reload_enabled: false, reload_user: 'dev@example.com' });
    expect(held).toEqual([]);
  });

  test('a module without stored reload keys, or not stored yet, is written as code has it', () => {
    expect(withHeldReloads([code], [code]).modules).toEqual([code]);
    expect(withHeldReloads([code], undefined)).toEqual({ modules: [code], held: [] });
    const other = withHeldReloads([code], [{ ...reloaded, name: 'other' }]);
    expect(other.modules).toEqual([code]);
  });

  test('adoption declares reload_enabled and reload_path, and leaves who reloaded, when and why to the service', () => {
    const made = machineConfigCode({ modules: [reloaded] }, 'ARM');
    if (!made.ok) throw new Error(made.reason);
    const module = made.code.modules[0];
    expect(module?.settings).toEqual({ reloadEnabled: true, reloadPath: '/home/dev/sensors/module.tar.gz' });
    expect(module?.overrides).toEqual([]);
  });
});
