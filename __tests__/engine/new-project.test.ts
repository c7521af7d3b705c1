/**
 * The files `fleetform init` writes and the fleetform spec a new project depends on, decided
 * by the engine from typed data (the command that writes them is covered by
 * __tests__/package/init-project.test.ts).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { satisfies } from 'semver';
import { InputError } from '../../src/domain/errors';
import {
  TEMPLATE_DEPENDENCIES,
  TEMPLATE_DEV_DEPENDENCIES,
  fleetformSpecFor,
  newProjectFiles,
  nextSteps,
  projectName,
} from '../../src/engine/project/new-project';

const ROOT = path.resolve(__dirname, '../..');
const OWN = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};

const fileOf = (name: string): string => {
  const found = newProjectFiles('yard', 'file:../fleetform-0.1.0.tgz').find((f) => f.path === name);
  if (!found) throw new Error(`no ${name} in the project`);
  return found.content;
};

describe('the fleetform a new project depends on', () => {
  test('a checkout, by its path relative to the project', () => {
    expect(fleetformSpecFor({ kind: 'checkout', dir: '/src/fleetform' }, '/home/me/yard')).toBe('file:../../../src/fleetform');
    expect(fleetformSpecFor({ kind: 'checkout', dir: '/home/me/yard/vendor/fleetform' }, '/home/me/yard')).toBe('file:./vendor/fleetform');
  });

  test('the tarball the installing project named, made relative to the new project', () => {
    const source = { kind: 'installed', projectDir: '/home/me/tools', spec: 'file:../fleetform-0.1.0.tgz' } as const;
    expect(fleetformSpecFor(source, '/home/me/fleets/yard')).toBe('file:../../fleetform-0.1.0.tgz');
  });

  test('a registry version or a git URL is written as named', () => {
    expect(fleetformSpecFor({ kind: 'installed', projectDir: '/p', spec: '^0.1.0' }, '/q')).toBe('^0.1.0');
    expect(fleetformSpecFor({ kind: 'given', spec: 'github:acme/fleetform#v0.1.0', cwd: '/p' }, '/q')).toBe('github:acme/fleetform#v0.1.0');
  });

  test('a local path given on the command line is read from where the command ran', () => {
    expect(fleetformSpecFor({ kind: 'given', spec: './fleetform-0.1.0.tgz', cwd: '/home/me' }, '/home/me/yard')).toBe(
      'file:../fleetform-0.1.0.tgz',
    );
    expect(fleetformSpecFor({ kind: 'given', spec: 'file:/opt/fleetform', cwd: '/home/me' }, '/home/me/yard')).toBe(
      'file:../../../opt/fleetform',
    );
  });

  test('an install nothing names is refused with the flag that says it', () => {
    const run = (): string => fleetformSpecFor({ kind: 'unknown', packageDir: '/usr/lib/node_modules/fleetform' }, '/q');
    expect(run).toThrow(InputError);
    expect(run).toThrow(expect.objectContaining({ hint: expect.stringContaining('--fleetform-spec') }));
  });
});

describe('the files of a new project', () => {
  test('are the project, its settings, its compiler options, what git ignores and the app', () => {
    expect(newProjectFiles('yard', '0.1.0').map((f) => f.path)).toEqual([
      'package.json',
      'cdktf.json',
      'tsconfig.json',
      '.gitignore',
      'main.ts',
    ]);
  });

  test('package.json depends on fleetform as given and pins what fleetform is tested with', () => {
    const manifest = JSON.parse(fileOf('package.json')) as {
      name: string;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
      allowScripts: Record<string, boolean>;
    };
    expect(manifest.name).toBe('yard');
    expect(manifest.dependencies.fleetform).toBe('file:../fleetform-0.1.0.tgz');
    for (const [name, version] of Object.entries({ ...TEMPLATE_DEPENDENCIES, ...TEMPLATE_DEV_DEPENDENCIES }))
      expect([name, version]).toEqual([name, OWN.devDependencies[name]]);
    expect(satisfies(TEMPLATE_DEPENDENCIES.cdktn, OWN.peerDependencies.cdktn ?? '')).toBe(true);
    expect(satisfies(TEMPLATE_DEPENDENCIES.constructs, OWN.peerDependencies.constructs ?? '')).toBe(true);
    expect(manifest.dependencies.cdktf).toBeUndefined();
    expect(manifest.allowScripts['better-sqlite3']).toBe(true);
  });

  test('cdktf.json runs main.ts, and the app imports the cdktn entry', () => {
    expect(JSON.parse(fileOf('cdktf.json'))).toMatchObject({
      language: 'typescript',
      app: 'npx ts-node --transpile-only main.ts',
      projectId: 'yard',
    });
    expect(fileOf('main.ts')).toContain("from 'fleetform/cdktn'");
    expect(fileOf('main.ts')).toContain("from 'cdktn'");
  });

  test('git ignores installs, synthesized output and the local state and emulator', () => {
    expect(fileOf('.gitignore').split('\n')).toEqual(expect.arrayContaining(['node_modules/', 'cdktf.out/', '.fleetform/']));
  });
});

describe('names and next steps', () => {
  test('a folder name becomes an npm package name', () => {
    expect(projectName('/home/me/My Fleet')).toBe('my-fleet');
    expect(projectName('/home/me/.hidden')).toBe('hidden');
    expect(projectName('/')).toBe('fleet');
  });

  test('the next steps go into the project, install and plan on the emulator', () => {
    expect(nextSteps('yard')[0]).toBe('cd yard');
    expect(nextSteps('my fleet')[0]).toBe('cd "my fleet"');
    expect(nextSteps('')[0]).toBe('npm install');
    expect(nextSteps('yard').some((line) => line.startsWith('npx fleetform plan'))).toBe(true);
  });
});
