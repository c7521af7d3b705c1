import { isCertainFailure } from '../../src/domain/certainty';
import {
  MODULE_DEPRECATED_CODE,
  MODULE_VIAM_SERVER_CODE,
  pinnedVersionFindings,
  resolvePolicyOnMachine,
  serverOlderThan,
} from '../../src/domain/module-version-status';
import type { ModuleVersion } from '../../src/domain/registry';
import { parseVersionPolicy } from '../../src/domain/version-policy';

const v = (version: string, extra: Partial<ModuleVersion> = {}): ModuleVersion => ({ version, models: [], ...extra });
const registry = [
  v('1.2.0'),
  v('1.3.0'),
  v('1.4.0', { minViamServerVersion: '0.99.0' }),
  v('1.5.0', { deprecated: 'leaks file handles' }),
  v('1.6.0-rc.1'),
  v('2.0.0'),
];

describe('version policies on a machine', () => {
  test('a policy skips deprecated versions and those needing a newer viam-server, saying why', () => {
    const r = resolvePolicyOnMachine(parseVersionPolicy('^1'), registry, '0.98.1');
    expect(r.resolved).toEqual({ version: '1.3.0', automaticUpdate: false });
    expect(r.skipped).toEqual([
      { version: '1.4.0', reason: 'needs viam-server 0.99.0, the machine runs 0.98.1' },
      { version: '1.5.0', reason: 'deprecated (leaks file handles)' },
    ]);
  });

  test('a machine whose viam-server is new enough, or unknown, takes a version by its minimum; deprecation is skipped whatever it runs', () => {
    expect(resolvePolicyOnMachine(parseVersionPolicy('~1.4'), registry, 'v0.99.0').resolved?.version).toBe('1.4.0');
    const unknown = resolvePolicyOnMachine(parseVersionPolicy('^1'), registry, undefined);
    expect(unknown.resolved?.version).toBe('1.4.0');
    expect(unknown.skipped.map((s) => s.version)).toEqual(['1.5.0']);
    expect(resolvePolicyOnMachine(parseVersionPolicy('latest'), registry, '0.98.0').resolved?.version).toBe('2.0.0');
  });

  test('a policy every admitted version of which is skipped runs none (or the deployed one) and lists them all', () => {
    const r = resolvePolicyOnMachine(parseVersionPolicy('~1.5'), registry, '0.98.0');
    expect(r.resolved).toBeUndefined();
    expect(r.skipped.map((s) => s.version)).toEqual(['1.5.0']);
    expect(resolvePolicyOnMachine(parseVersionPolicy('~1.5'), registry, '0.98.0', '1.5.0').resolved?.version).toBe('1.5.0');
  });

  test('an exact version runs whatever the registry says of it', () => {
    expect(resolvePolicyOnMachine(parseVersionPolicy('1.5.0'), registry, '0.98.0')).toEqual({
      resolved: { version: '1.5.0', automaticUpdate: false },
      skipped: [],
    });
  });
});

describe('a module pinned to one version', () => {
  test('deprecated: a warning, it still runs', () => {
    const [w, ...rest] = pinnedVersionFindings('acme:sensors', v('1.5.0', { deprecated: '' }), '0.98.0', 'modules[0].version');
    expect(rest).toEqual([]);
    expect(w).toMatchObject({ severity: 'warning', code: MODULE_DEPRECATED_CODE });
    expect(w && isCertainFailure(w)).toBe(false);
    expect(w?.message).toBe('acme:sensors@1.5.0 is deprecated; the machine still runs it');
  });

  test('needing a newer viam-server than the machine runs: certain; when its version is unknown: possible', () => {
    const needs = v('1.4.0', { minViamServerVersion: '0.99.0' });
    const [certain] = pinnedVersionFindings('acme:sensors', needs, '0.98.0', 'p');
    expect(certain).toMatchObject({ code: MODULE_VIAM_SERVER_CODE, certainty: 'certain' });
    expect(certain?.message).toContain('needs viam-server 0.99.0; the machine runs 0.98.0');
    const [possible] = pinnedVersionFindings('acme:sensors', needs, undefined, 'p');
    expect(possible && isCertainFailure(possible)).toBe(false);
    expect(pinnedVersionFindings('acme:sensors', needs, '0.99.0', 'p')).toEqual([]);
  });

  test('versions compare as releases, a leading v and a prerelease aside; no version is no finding', () => {
    expect(serverOlderThan('v0.98.0', '0.99')).toBe(true);
    expect(serverOlderThan('0.99.0-rc1', '0.99.0')).toBe(false);
    expect(serverOlderThan('dev', '0.99.0')).toBeUndefined();
  });
});
