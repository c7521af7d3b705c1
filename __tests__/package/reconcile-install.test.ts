/**
 * `fleetform reconcile --repo` on an ordinary repository: a bare git repository holding a
 * TypeScript CDKTF app, its package.json and package-lock.json, and no node_modules. The
 * reconciler installs the lockfile with `npm ci` (fleetform from the packed tarball, the rest
 * from npm's cache), runs the app with ts-node and applies; a later commit with the same
 * lockfile links the cached install instead of installing again.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { machineNamed, of, reconcilerRuns, suiteEmulator } from '../reconciler/fixture';
import { packed } from './packed';

jest.setTimeout(300_000);

const suite = suiteEmulator('ff-reconcile-install-');
const runs = reconcilerRuns(suite);

const ROOT = path.resolve(__dirname, '../..');
const dev = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> })
  .devDependencies;

const mainTs = (machines: readonly string[]): string => `import { App, TerraformStack } from 'cdktf';
import { FleetProvider, Machine } from 'fleetform';

const app = new App();
const stack = new TerraformStack(app, 'yard');
new FleetProvider(stack, 'cloud', {});
${machines.map((m) => `new Machine(stack, '${m}', { name: '${m}' });`).join('\n')}
app.synth();
`;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Fleet Test', '-c', 'user.email=fleet@example.com', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();
}

/**
 * The repository's files, written in `work` (a sibling of the reconciler's checkout, so the
 * lockfile's `file:../fleetform.tgz` names the same tarball from both), and its lockfile
 * resolved from npm's cache.
 */
function writeProject(dir: string, work: string): void {
  copyFileSync(packed().tarball, path.join(dir, 'fleetform.tgz'));
  mkdirSync(work);
  const pkg = {
    name: 'yard-fleet',
    version: '1.0.0',
    private: true,
    dependencies: {
      fleetform: 'file:../fleetform.tgz',
      cdktf: dev.cdktf,
      constructs: dev.constructs,
      'ts-node': dev['ts-node'],
      typescript: dev.typescript,
      '@types/node': dev['@types/node'],
    },
  };
  writeFileSync(path.join(work, 'package.json'), JSON.stringify(pkg, null, 2));
  writeFileSync(path.join(work, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'npx ts-node --transpile-only main.ts' }));
  writeFileSync(
    path.join(work, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'CommonJS', target: 'ES2020', strict: true, skipLibCheck: true }, include: ['main.ts'] }),
  );
  writeFileSync(path.join(work, 'main.ts'), mainTs(['mower-1']));
  execFileSync('npm', ['install', '--package-lock-only', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: work,
    stdio: 'ignore',
  });
}

test('installs the lockfile with npm ci, runs the TypeScript app and applies; a commit with the same lockfile reuses the install', async () => {
  const { dir } = suite;
  const work = path.join(dir, 'work');
  const bare = path.join(dir, 'repo.git');
  const checkout = path.join(dir, 'checkout');
  const cache = path.join(dir, 'dependencies');
  writeProject(dir, work);
  git(dir, 'init', '--quiet', '--bare', bare);
  git(work, 'init', '--quiet', '-b', 'main');
  git(work, 'add', 'package.json', 'package-lock.json', 'cdktf.json', 'tsconfig.json', 'main.ts');
  git(work, 'commit', '--quiet', '-m', 'a yard of one mower');
  git(work, 'push', '--quiet', bare, 'main');

  // npm finds everything in its cache: nothing is asked of the registry that the cache holds.
  const env = { ...process.env, ...suite.env, npm_config_prefer_offline: 'true' };
  const running = await runs.start(
    dir,
    ['--repo', bare, '--branch', 'main', '--workdir', checkout, '--install-cache', cache, '--interval', '1h', '--poll', '200ms'],
    env,
  );
  const created = await runs.hook.waitFor(of('apply-finished', 'yard'), 0, 240_000);
  expect(created.failed).toEqual([]);
  expect((await machineNamed(suite.client, suite.credentials.locationId, 'mower-1')).name).toBe('mower-1');
  expect(running.log()).toContain('dependencies installed with npm ci --ignore-scripts');
  // The checkout's node_modules is a link to the one cached install.
  const installs = readdirSync(cache);
  expect(installs).toHaveLength(1);
  expect(lstatSync(path.join(checkout, 'node_modules')).isSymbolicLink()).toBe(true);
  expect(readlinkSync(path.join(checkout, 'node_modules'))).toBe(path.join(cache, installs[0] ?? '', 'node_modules'));

  // A commit of code only: the same lockfile, linked again, not installed.
  const mark = runs.hook.events.length;
  writeFileSync(path.join(work, 'main.ts'), mainTs(['mower-1', 'mower-2']));
  git(work, 'commit', '--quiet', '-am', 'a second mower');
  git(work, 'push', '--quiet', bare, 'main');
  const second = await runs.hook.waitFor(of('apply-finished', 'yard'), mark, 120_000);
  expect(second.failed).toEqual([]);
  expect((await machineNamed(suite.client, suite.credentials.locationId, 'mower-2')).name).toBe('mower-2');
  expect(running.log()).toContain('dependencies installed before for this lockfile, linked');
  expect(running.log().match(/dependencies installed with npm ci/g)).toHaveLength(1);
  expect(readdirSync(cache)).toEqual(installs);
});
