/**
 * `fleetform adopt --out` naming the file the project's app runs: the file is the whole app
 * (the stack class, the App, the synth), so the project adopt leaves behind synthesizes and
 * plans "No changes".
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fleetform, openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '../..');
let p: EmulatorProject | undefined;

afterEach(async () => {
  await p?.close();
  p = undefined;
});

/** A project folder whose cdktf.json runs `entry`, with fleetform and cdktf installed (linked). */
async function projectRunning(entry: string): Promise<EmulatorProject> {
  const q = await openEmulatorProject('ff-adopt-entry-');
  await fs.mkdir(path.join(q.dir, 'node_modules'));
  for (const m of ['cdktf', 'constructs', 'tsx', '@types'])
    await fs.symlink(path.join(ROOT, 'node_modules', m), path.join(q.dir, 'node_modules', m));
  await fs.symlink(ROOT, path.join(q.dir, 'node_modules', 'fleetform'));
  await fs.writeFile(
    path.join(q.dir, 'package.json'),
    JSON.stringify({ name: 'adopted', private: true, dependencies: { cdktf: '*', fleetform: '*' } }),
  );
  await fs.writeFile(
    path.join(q.dir, 'cdktf.json'),
    JSON.stringify({
      language: 'typescript',
      app: `node --import tsx ${entry}`,
      terraformProviders: [],
      terraformModules: [],
      context: {},
    }),
  );
  await q.client.appClient.newMachine('tug-1', q.credentials.locationId);
  return q;
}

test.each(['main.ts', 'src/app.ts'])(
  'adopt --out %s, the file cdktf.json runs, writes an app that synthesizes and plans No changes',
  async (entry) => {
    p = await projectRunning(entry);
    const adopt = await fleetform(p.dir, ['adopt', '--out', entry], p.env);
    expect(adopt.stderr).toBe('');
    expect(adopt.code).toBe(0);
    expect(adopt.stdout).toContain(`Wrote ${entry}.`);
    expect(adopt.stdout).toContain('into stack adopted');
    const code = await fs.readFile(path.join(p.dir, entry), 'utf8');
    expect(code).toContain("import { App, TerraformStack } from 'cdktf';");
    expect(code).toMatch(/const app = new App\(\);\nnew AdoptedStack\(app, 'adopted'\);\napp\.synth\(\);\n$/);
    const plan = await fleetform(p.dir, ['plan'], p.env);
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('No changes.');
  },
);

test('adopt --out another file leaves the entry it writes importing it from its own folder', async () => {
  p = await projectRunning('src/main.ts');
  const adopt = await fleetform(p.dir, ['adopt', '--out', 'stacks/fleet.ts'], p.env);
  expect(adopt.code).toBe(0);
  expect(adopt.stdout).toContain('Wrote stacks/fleet.ts, src/main.ts.');
  // fleetform is not on the registry: the install names this checkout by its path from the project.
  const install = /^The code runs with: npm install file:(\S+) cdkt[fn] constructs && npm install --save-dev tsx typescript$/m.exec(
    adopt.stdout,
  );
  expect(path.resolve(p.dir, install?.[1] ?? '')).toBe(ROOT);
  expect(await fs.readFile(path.join(p.dir, 'src', 'main.ts'), 'utf8')).toContain("from '../stacks/fleet';");
  const plan = await fleetform(p.dir, ['plan'], p.env);
  expect(plan.stderr).toBe('');
  expect(plan.stdout).toContain('No changes.');
});
