import {
  describeVersionPolicy,
  FleetformError,
  formatVersionPolicy,
  newestVersion,
  parseVersionPolicy,
  policyAdmits,
  resolveModuleVersion,
  tryParseVersionPolicy,
  type VersionPolicy,
} from '../../src/domain';

/** The seeded registry module acme:sensors. */
const SENSORS = ['1.1.0', '1.2.0', '1.2.3', '1.2.4', '1.2.5', '1.3.0', '2.0.0-rc.1'];

describe('parseVersionPolicy / formatVersionPolicy', () => {
  test.each<[string, VersionPolicy, string]>([
    ['1.2.3', { kind: 'patch', version: '1.2.3' }, '1.2.3'],
    ['0.0.1', { kind: 'patch', version: '0.0.1' }, '0.0.1'],
    ['2.0.0-rc.1', { kind: 'patch', version: '2.0.0-rc.1' }, '2.0.0-rc.1'],
    ['1.2.3+build.7', { kind: 'patch', version: '1.2.3+build.7' }, '1.2.3+build.7'],
    ['~1.2', { kind: 'minor', major: 1, minor: 2 }, '~1.2'],
    ['1.2.*', { kind: 'minor', major: 1, minor: 2 }, '~1.2'],
    ['~0.10', { kind: 'minor', major: 0, minor: 10 }, '~0.10'],
    ['^1', { kind: 'major', major: 1 }, '^1'],
    ['1.*', { kind: 'major', major: 1 }, '^1'],
    ['^0', { kind: 'major', major: 0 }, '^0'],
    ['latest', { kind: 'latest' }, 'latest'],
    ['latest-with-prerelease', { kind: 'latest-with-prerelease' }, 'latest-with-prerelease'],
  ])('%j parses and is stored as %j', (text, policy, stored) => {
    expect(parseVersionPolicy(text)).toEqual(policy);
    expect(formatVersionPolicy(policy)).toBe(stored);
    expect(parseVersionPolicy(stored)).toEqual(policy);
  });

  test.each([
    '',
    '1',
    '1.2',
    'v1.2.3',
    '=1.2.3',
    ' 1.2.3',
    '1.2.3 ',
    '01.2.3',
    '1.02.3',
    '~1',
    '~1.2.3',
    '^1.2',
    '^1.2.3',
    '1.x',
    '1.2.x',
    '*',
    '>=1.2.3',
    'Latest',
    'newest',
    'latest-prerelease',
    '1.2.3-',
    '1.2.3-rc..1',
  ])('%j is rejected with the accepted forms listed', (text) => {
    expect(tryParseVersionPolicy(text)).toBeUndefined();
    let caught: unknown;
    try {
      parseVersionPolicy(text);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(FleetformError);
    const e = caught as FleetformError;
    expect(e.message).toContain(JSON.stringify(text));
    for (const form of ['X.Y.Z', '~X.Y', 'X.Y.*', '^X', 'X.*', 'latest', 'latest-with-prerelease']) expect(e.hint).toContain(form);
  });

  test.each<[VersionPolicy, string]>([
    [{ kind: 'patch', version: '1.2.3' }, 'patch 1.2.3: pinned, never updates automatically'],
    [{ kind: 'minor', major: 1, minor: 2 }, 'minor ~1.2: newer patches of 1.2'],
    [{ kind: 'major', major: 1 }, 'major ^1: newer minor and patch releases of 1'],
    [{ kind: 'latest' }, 'latest: always the newest release'],
    [{ kind: 'latest-with-prerelease' }, 'latest-with-prerelease: always the newest release or prerelease'],
  ])('describe %j', (policy, text) => expect(describeVersionPolicy(policy)).toBe(text));
});

describe('policyAdmits', () => {
  test.each<[string, string, boolean]>([
    ['1.2.3', '1.2.3', true],
    ['1.2.3', '1.2.3+build', true],
    ['1.2.3', '1.2.4', false],
    ['2.0.0-rc.1', '2.0.0-rc.1', true],
    ['~1.2', '1.2.0', true],
    ['~1.2', '1.2.5', true],
    ['~1.2', '1.3.0', false],
    ['~1.2', '2.0.0', false],
    ['~1.2', '1.2.6-beta', false],
    ['^1', '1.3.0', true],
    ['^1', '1.0.0', true],
    ['^1', '2.0.0', false],
    ['^1', '0.9.0', false],
    ['^1', '1.4.0-rc.1', false],
    ['latest', '9.9.9', true],
    ['latest', '2.0.0-rc.1', false],
    ['latest-with-prerelease', '2.0.0-rc.1', true],
    ['latest-with-prerelease', '1.0.0', true],
    ['latest', 'not-a-version', false],
    ['latest', 'v1.0.0', false],
  ])('%s admits %s: %s', (policy, version, admits) => {
    expect(policyAdmits(parseVersionPolicy(policy), version)).toBe(admits);
  });
});

describe('newestVersion', () => {
  test.each<[string[], boolean, string | undefined]>([
    [SENSORS, false, '1.3.0'],
    [SENSORS, true, '2.0.0-rc.1'],
    [['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-beta', '1.0.0-rc.1'], true, '1.0.0-rc.1'],
    [['1.0.0-rc.1', '1.0.0'], true, '1.0.0'],
    [['1.0.0-alpha.beta', '1.0.0-alpha.1'], true, '1.0.0-alpha.beta'],
    [['1.10.0', '1.9.0', '1.2.0'], false, '1.10.0'],
    [['junk', '0.1.0'], false, '0.1.0'],
    [['2.0.0-rc.1'], false, undefined],
    [[], true, undefined],
  ])('%j (prerelease %s) -> %j', (available, includePrerelease, expected) => {
    expect(newestVersion(available, { includePrerelease })).toBe(expected);
  });
});

describe('resolveModuleVersion: Minor and Major from a deployed 1.2.3', () => {
  // Minor 1.2.3 may move to 1.2.4 or 1.2.5, not 1.3.0 or 2.0.0;
  // Major 1.2.3 may move to 1.2.4 or 1.3.0, not 2.0.0 or 3.0.0.
  test.each<[string, string[], string]>([
    ['~1.2', ['1.2.3', '1.2.4'], '1.2.4'],
    ['~1.2', ['1.2.3', '1.2.4', '1.2.5'], '1.2.5'],
    ['~1.2', ['1.2.3', '1.3.0'], '1.2.3'],
    ['~1.2', ['1.2.3', '2.0.0'], '1.2.3'],
    ['~1.2', ['1.2.3', '1.2.5', '1.3.0', '2.0.0'], '1.2.5'],
    ['^1', ['1.2.3', '1.2.4'], '1.2.4'],
    ['^1', ['1.2.3', '1.3.0'], '1.3.0'],
    ['^1', ['1.2.3', '2.0.0'], '1.2.3'],
    ['^1', ['1.2.3', '3.0.0'], '1.2.3'],
    ['^1', ['1.2.3', '1.2.4', '1.3.0', '2.0.0', '3.0.0'], '1.3.0'],
    ['1.2.3', ['1.2.3', '1.2.4', '1.3.0', '2.0.0'], '1.2.3'],
    ['latest', ['1.2.3', '1.3.0', '2.0.0', '3.0.0-rc.1'], '2.0.0'],
    ['latest-with-prerelease', ['1.2.3', '1.3.0', '2.0.0', '3.0.0-rc.1'], '3.0.0-rc.1'],
  ])('%s with registry %j runs %s', (policy, available, expected) => {
    const r = resolveModuleVersion(parseVersionPolicy(policy), available, '1.2.3');
    expect(r?.version).toBe(expected);
    expect(r?.automaticUpdate).toBe(expected !== '1.2.3');
  });
});

describe('resolveModuleVersion: the seed state table', () => {
  // Row 1: a newer version appears, it matches the policy (any policy but Patch):
  // the module moves to it and restarts (automatic update).
  test.each<[string, string]>([
    ['~1.2', '1.2.5'],
    ['^1', '1.3.0'],
    ['latest', '1.3.0'],
    ['latest-with-prerelease', '2.0.0-rc.1'],
  ])('row 1: %s at 1.2.3 moves to %s with a restart', (policy, expected) => {
    expect(resolveModuleVersion(parseVersionPolicy(policy), SENSORS, '1.2.3')).toEqual({ version: expected, automaticUpdate: true });
  });
  // Row 2: the policy is Patch, or the newer version does not match the policy: unchanged.
  test.each<[string, string, string[]]>([
    ['1.2.3', '1.2.3', SENSORS],
    ['~1.2', '1.2.5', SENSORS],
    ['^1', '1.3.0', SENSORS],
    ['latest', '1.3.0', SENSORS],
    ['^0', '0.9.0', ['0.9.0', '1.0.0']],
    ['~1.1', '1.1.0', SENSORS],
  ])('row 2: %s at %s stays unchanged', (policy, deployed, available) => {
    expect(resolveModuleVersion(parseVersionPolicy(policy), available, deployed)).toEqual({ version: deployed, automaticUpdate: false });
  });
});

describe('resolveModuleVersion: first deployment and edge cases', () => {
  test.each<[string, string | undefined]>([
    ['1.2.4', '1.2.4'],
    ['1.1.0', '1.1.0'], // any past patch may be chosen
    ['2.0.0-rc.1', '2.0.0-rc.1'],
    ['~1.2', '1.2.5'],
    ['^1', '1.3.0'],
    ['^2', undefined], // only a prerelease of 2 exists
    ['latest', '1.3.0'],
    ['latest-with-prerelease', '2.0.0-rc.1'],
    ['1.2.9', undefined], // not in the registry
    ['~3.0', undefined],
  ])('new module with %s runs %j, no automatic update', (policy, expected) => {
    const r = resolveModuleVersion(parseVersionPolicy(policy), SENSORS);
    expect(r?.version).toBe(expected);
    if (r) expect(r.automaticUpdate).toBe(false);
  });
  test('a patch pin chosen by the user is not an automatic update', () => {
    expect(resolveModuleVersion(parseVersionPolicy('1.3.0'), SENSORS, '1.2.3')).toEqual({ version: '1.3.0', automaticUpdate: false });
  });
  test('a policy that now selects an older version is not an automatic update', () => {
    expect(resolveModuleVersion(parseVersionPolicy('~1.1'), SENSORS, '1.3.0')).toEqual({ version: '1.1.0', automaticUpdate: false });
  });
  test('the deployed version is kept when the registry lists nothing admitted', () => {
    expect(resolveModuleVersion(parseVersionPolicy('~1.2'), [], '1.2.3')).toEqual({ version: '1.2.3', automaticUpdate: false });
    expect(resolveModuleVersion(parseVersionPolicy('~1.2'), [], '1.3.0')).toBeUndefined();
  });
});
