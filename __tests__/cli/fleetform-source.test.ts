import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fleetformSource, installSpecFor, UNKNOWN_FLEETFORM_SPEC } from '../../src/cli/fleetform-source';

let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-source-'));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A project in `dir/name` whose node_modules holds fleetform, its package.json naming it by `spec`. */
function installedInto(name: string, spec: string | undefined): string {
  const project = path.join(dir, name);
  const packageRoot = path.join(project, 'node_modules', 'fleetform');
  fs.mkdirSync(packageRoot, { recursive: true });
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify(spec === undefined ? {} : { dependencies: { fleetform: spec } }));
  return packageRoot;
}

test('a checkout installs by its path: relative from the project it runs in, absolute from anywhere', () => {
  const checkout = path.join(dir, 'fleetform');
  const source = fleetformSource(dir, undefined, checkout);
  expect(source).toEqual({ kind: 'checkout', dir: checkout });
  expect(installSpecFor(source, path.join(dir, 'fleet'))).toBe('file:../fleetform');
  expect(installSpecFor(source)).toBe(checkout);
});

test('an installed fleetform installs as its project named it: the tarball by its path, a range by the package name', () => {
  const fromTarball = fleetformSource(dir, undefined, installedInto('a', 'file:../fleetform-0.1.0.tgz'));
  expect(installSpecFor(fromTarball, path.join(dir, 'a', 'sub'))).toBe('file:../../fleetform-0.1.0.tgz');
  expect(installSpecFor(fromTarball)).toBe(path.join(dir, 'fleetform-0.1.0.tgz'));
  const published = fleetformSource(dir, undefined, installedInto('b', '^0.2.0'));
  expect(installSpecFor(published, path.join(dir, 'b'))).toBe('fleetform@^0.2.0');
  expect(installSpecFor(published)).toBe('fleetform@^0.2.0');
  const fromGit = fleetformSource(dir, undefined, installedInto('c', 'git+https://example.com/fleetform.git'));
  expect(installSpecFor(fromGit)).toBe('git+https://example.com/fleetform.git');
});

test('a fleetform no project names says where to put the path, and never `npm install fleetform`', () => {
  const unknown = fleetformSource(dir, undefined, installedInto('d', undefined));
  expect(unknown.kind).toBe('unknown');
  expect(installSpecFor(unknown, dir)).toBe(UNKNOWN_FLEETFORM_SPEC);
  expect(UNKNOWN_FLEETFORM_SPEC).not.toBe('fleetform');
});

test('a spec given in a folder is a path from the project, or written as given', () => {
  expect(installSpecFor(fleetformSource(dir, '../fleetform-0.1.0.tgz'), dir)).toBe('file:../fleetform-0.1.0.tgz');
  expect(installSpecFor(fleetformSource(dir, '1.0.0'), dir)).toBe('fleetform@1.0.0');
});
