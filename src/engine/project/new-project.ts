/**
 * The files of a new CDK Terrain project managing a fleet with fleetform, as `fleetform init`
 * writes them: what the project holds and depends on, decided here from typed data; writing
 * them is the command line's.
 */
import * as path from 'node:path';
import { InputError } from '../../domain/errors';
import { MAIN_TS } from './template-main';

/** One file of the new project: its path inside the project and its whole text. */
export interface ProjectFile {
  readonly path: string;
  readonly content: string;
}

/**
 * The project's libraries, pinned to the versions fleetform is built and tested with (cdktn
 * 0.24 takes constructs 10.6 and 10.7), so a first install resolves exactly what was tested.
 */
export const TEMPLATE_DEPENDENCIES = { cdktn: '0.24.0', constructs: '10.7.2' } as const;
/** What runs main.ts (ts-node over TypeScript, as cdktn's own TypeScript template has it) and checks its types (`npm run typecheck`). */
export const TEMPLATE_DEV_DEPENDENCIES = { '@types/node': '20.19.43', 'ts-node': '10.9.2', typescript: '5.9.3' } as const;

/**
 * The install scripts the project lets run (npm's `allowScripts`): better-sqlite3 fetches or
 * builds its addon, protobufjs checks its install; fleetform's own `prepare` builds a checkout
 * and has nothing to do in an installed package.
 */
export const TEMPLATE_ALLOW_SCRIPTS = { 'better-sqlite3': true, protobufjs: true, fleetform: false } as const;

/** Where the fleetform a new project depends on comes from. */
export type FleetformSource =
  /** A spec given on the command line (`--fleetform-spec`) in `cwd`: a local path is made relative to the project, any other written as given. */
  | { readonly kind: 'given'; readonly spec: string; readonly cwd: string }
  /** A checkout of fleetform (its own folder, not inside node_modules). */
  | { readonly kind: 'checkout'; readonly dir: string }
  /** fleetform installed into another project, which named it by `spec` in its package.json. */
  | { readonly kind: 'installed'; readonly projectDir: string; readonly spec: string }
  /** Installed where no package.json names it (a global install, a cache). */
  | { readonly kind: 'unknown'; readonly packageDir: string };

const SPEC_HINT = 'pass --fleetform-spec, e.g. --fleetform-spec ../fleetform-0.1.0.tgz or --fleetform-spec /path/to/fleetform';

/** A local path written as npm's `file:` spec, relative to the project when it can be. */
function fileSpec(target: string, projectDir: string): string {
  const relative = path.relative(projectDir, target).split(path.sep).join('/');
  if (relative === '') return 'file:.';
  return `file:${relative.startsWith('.') || path.isAbsolute(relative) ? relative : `./${relative}`}`;
}

/** True for a spec npm reads as a local folder or tarball. */
export function isLocalSpec(spec: string): boolean {
  return spec.startsWith('file:') || spec.startsWith('.') || spec.startsWith('/') || /\.(tgz|tar\.gz)$/.test(spec);
}

/**
 * The dependency spec of fleetform in a project made in `projectDir`: the same fleetform as
 * the one running (its checkout, or the tarball or folder the installing project named), a
 * local one by a path relative to the new project.
 */
export function fleetformSpecFor(source: FleetformSource, projectDir: string): string {
  switch (source.kind) {
    case 'given':
      return isLocalSpec(source.spec) ? fileSpec(path.resolve(source.cwd, source.spec.replace(/^file:/, '')), projectDir) : source.spec;
    case 'checkout':
      return fileSpec(source.dir, projectDir);
    case 'installed': {
      if (!isLocalSpec(source.spec)) return source.spec;
      const local = source.spec.replace(/^file:/, '');
      return fileSpec(path.resolve(source.projectDir, local), projectDir);
    }
    case 'unknown':
      throw new InputError('cannot tell where this fleetform was installed from, so the new project cannot depend on it', {
        path: source.packageDir,
        hint: SPEC_HINT,
      });
  }
}

/** An npm package name made of a folder's name: lower case, letters, digits, `-`, `.` and `_`, not starting with `.` or `_`. */
export function projectName(dir: string): string {
  const name = path
    .basename(path.resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+/, '')
    .replace(/-+$/, '');
  return name === '' ? 'fleet' : name.slice(0, 214);
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

function packageJson(name: string, fleetformSpec: string): string {
  return json({
    name,
    version: '0.1.0',
    private: true,
    description: 'A robot fleet as code, managed with fleetform',
    scripts: {
      validate: 'fleetform validate',
      synth: 'fleetform synth',
      plan: 'fleetform plan',
      apply: 'fleetform apply',
      start: 'fleetform plan && fleetform apply --auto-approve',
      typecheck: 'tsc --noEmit',
    },
    dependencies: { fleetform: fleetformSpec, ...TEMPLATE_DEPENDENCIES },
    devDependencies: { ...TEMPLATE_DEV_DEPENDENCIES },
    engines: { node: '>=20.18.1' },
    allowScripts: { ...TEMPLATE_ALLOW_SCRIPTS },
  });
}

/**
 * cdktf.json as the example fleet's: the command that runs the app, no providers or modules
 * of Terraform's. The app runs without a type check, which would cost every plan seconds:
 * the constructs check their props at run time, and `npm run typecheck` checks the types.
 */
function cdktfJson(name: string): string {
  return json({
    language: 'typescript',
    app: 'npx ts-node --transpile-only main.ts',
    projectId: name,
    sendCrashReports: 'false',
    terraformProviders: [],
    terraformModules: [],
    context: {},
  });
}

/** cdktn's TypeScript template's compiler settings, with the output folder out of the program. */
const TSCONFIG = json({
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2022'],
    module: 'CommonJS',
    strict: true,
    noImplicitReturns: true,
    noFallthroughCasesInSwitch: true,
    noUnusedLocals: true,
    noUnusedParameters: true,
    resolveJsonModule: true,
    esModuleInterop: true,
    skipLibCheck: true,
    types: ['node'],
  },
  include: ['**/*.ts'],
  exclude: ['node_modules', 'cdktf.out'],
});

/** What the project keeps out of git: installs, synthesized output and fleetform's local state and emulator. */
const GITIGNORE = [
  'node_modules/',
  'cdktf.out/',
  '.fleetform/',
  '*.tsbuildinfo',
  'terraform.*.tfstate',
  'terraform.*.tfstate.backup',
  '',
].join('\n');

/** Every file of a new project named `name`, depending on fleetform by `fleetformSpec`. */
export function newProjectFiles(name: string, fleetformSpec: string): readonly ProjectFile[] {
  return [
    { path: 'package.json', content: packageJson(name, fleetformSpec) },
    { path: 'cdktf.json', content: cdktfJson(name) },
    { path: 'tsconfig.json', content: TSCONFIG },
    { path: '.gitignore', content: GITIGNORE },
    { path: 'main.ts', content: MAIN_TS },
  ];
}

/** The commands to run next, from the folder `fleetform init` ran in (`relativeDir` is '' when it is the project). */
export function nextSteps(relativeDir: string): readonly string[] {
  return [
    ...(relativeDir === '' ? [] : [`cd ${/\s/.test(relativeDir) ? JSON.stringify(relativeDir) : relativeDir}`]),
    'npm install',
    'npx fleetform plan                 # on the embedded emulator: no FLEETFORM_ENDPOINT set',
    'npx fleetform apply --auto-approve',
    'npx fleetform status',
  ];
}
