import {
  DependencyError,
  dependencyStep,
  installCommand,
  installFolder,
  installKey,
  prunedInstalls,
  type FolderSurvey,
} from '../../src/reconciler/dependencies';

const folder = (dir: string, over: Partial<FolderSurvey> = {}): FolderSurvey => ({
  dir,
  declaresDependencies: undefined,
  lockfiles: [],
  nodeModules: 'none',
  ...over,
});
const runtime = { abi: '115', platform: 'linux', arch: 'x64' };

describe('the folder that installs', () => {
  test('the nearest with a lockfile: a workspace root above the project folder', () => {
    const project = folder('/c/fleet', { declaresDependencies: true });
    const root = folder('/c', { declaresDependencies: true, lockfiles: ['package-lock.json'] });
    expect(installFolder([project, root])).toBe(root);
  });
  test('else the nearest with a package.json; none without one', () => {
    const project = folder('/c/fleet', { declaresDependencies: false });
    expect(installFolder([project, folder('/c')])).toBe(project);
    expect(installFolder([folder('/c/fleet'), folder('/c')])).toBeUndefined();
  });
});

describe('what is done', () => {
  const locked = folder('/c', { declaresDependencies: true, lockfiles: ['package-lock.json'] });
  test('a lockfile not installed yet is installed; installed before, linked', () => {
    expect(dependencyStep(locked, 'k1', false)).toEqual({
      kind: 'install',
      dir: '/c',
      lockfile: 'package-lock.json',
      key: 'k1',
      leftover: false,
    });
    expect(dependencyStep(locked, 'k1', true)).toEqual({ kind: 'link', dir: '/c', lockfile: 'package-lock.json', key: 'k1' });
  });
  test('a node_modules folder git does not track is an unfinished install, replaced', () => {
    expect(dependencyStep({ ...locked, nodeModules: 'leftover' }, 'k1', false)).toMatchObject({ kind: 'install', leftover: true });
  });
  test('committed node_modules are used as they are', () => {
    expect(dependencyStep({ ...locked, nodeModules: 'committed' }, 'k1', false)).toEqual({ kind: 'committed', dir: '/c' });
  });
  test('dependencies without a lockfile are said; no dependencies or no package.json, nothing', () => {
    expect(dependencyStep(folder('/c', { declaresDependencies: true }), undefined, false)).toEqual({ kind: 'no-lockfile', dir: '/c' });
    expect(dependencyStep(folder('/c', { declaresDependencies: false }), undefined, false).kind).toBe('nothing');
    expect(dependencyStep(undefined, undefined, false).kind).toBe('nothing');
  });
  test("another manager's lockfile is refused, naming it and the fix", () => {
    const yarn = folder('/c', { declaresDependencies: true, lockfiles: ['yarn.lock'] });
    expect(() => dependencyStep(yarn, undefined, false)).toThrow(DependencyError);
    expect(() => dependencyStep(yarn, undefined, false)).toThrow('the project holds yarn.lock (yarn)');
    try {
      dependencyStep(yarn, undefined, false);
    } catch (err) {
      expect((err as DependencyError).path).toBe('/c/yarn.lock');
      expect((err as DependencyError).hint).toContain('npm install --package-lock-only');
    }
  });
});

describe('the install', () => {
  test("its key follows the lockfile's content, whether scripts run and the runtime", () => {
    const key = installKey('{"a":1}', { scripts: false }, runtime);
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(installKey('{"a":1}', { scripts: false }, runtime)).toBe(key);
    expect(installKey('{"a":2}', { scripts: false }, runtime)).not.toBe(key);
    expect(installKey('{"a":1}', { scripts: true }, runtime)).not.toBe(key);
    expect(installKey('{"a":1}', { scripts: false }, { ...runtime, abi: '127' })).not.toBe(key);
  });
  test('npm ci without install scripts unless allowed', () => {
    expect(installCommand({ scripts: false })).toEqual({
      command: 'npm',
      args: ['ci', '--no-audit', '--no-fund', '--loglevel=error', '--ignore-scripts'],
    });
    expect(installCommand({ scripts: true }).args).not.toContain('--ignore-scripts');
  });
  test('the cache keeps the installs used last, and always the one in use', () => {
    const entries = [
      { key: 'a', usedAt: 1 },
      { key: 'b', usedAt: 4 },
      { key: 'c', usedAt: 3 },
      { key: 'd', usedAt: 2 },
    ];
    expect(prunedInstalls(entries, 3, 'a').sort()).toEqual(['d']);
    expect(prunedInstalls(entries, 1, 'b').sort()).toEqual(['a', 'c', 'd']);
    expect(prunedInstalls(entries.slice(0, 2), 3, 'a')).toEqual([]);
  });
});
