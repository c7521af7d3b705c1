import { z } from 'zod';
import { certainIssue, errorIssue, type Issue } from './issue';
import { childPath } from './json-path';

/**
 * Packages of a machine config: files the machine server downloads from the registry
 * (trained models, modules, SLAM maps, archives) before it starts the resources that use
 * them. Resources and modules find them through `${packages.[type.]name}` placeholders.
 */

/** The package types a machine config may list, as its JSON writes them. */
export const PACKAGE_TYPES = ['ml_model', 'module', 'slam_map', 'archive'] as const;
export type PackageType = (typeof PACKAGE_TYPES)[number];

/** A local package name: a letter or digit, then letters, digits, `_` or `-`. */
export const PACKAGE_NAME_PATTERN = /^[a-zA-Z0-9][-\w]*$/;
/** Longest local package name the machine server accepts. */
export const PACKAGE_NAME_MAX_LENGTH = 200;
/** The version that means "the newest one"; an empty version means the same. */
export const LATEST_PACKAGE_VERSION = 'latest';
/** The type a placeholder without one (`${packages.NAME}`) looks for. */
export const DEFAULT_PLACEHOLDER_PACKAGE_TYPE: PackageType = 'ml_model';

/** An entry of a machine config's `packages`. */
export const PackageConfigSchema = z.looseObject({
  /** Local name, unique on the machine; placeholders refer to it. */
  name: z.string(),
  /** Registry package id `<organization id>/<package name>`. */
  package: z.string(),
  /** The version to download; empty or `latest` for the newest one. */
  version: z.string().optional(),
  /** One of PACKAGE_TYPES (older configs leave it out). */
  type: z.string().optional(),
});
export type PackageConfig = z.infer<typeof PackageConfigSchema>;

/** Whether text is one of the package types a machine config may list. */
export function isPackageType(text: string): text is PackageType {
  return (PACKAGE_TYPES as readonly string[]).includes(text);
}

/** Whether a version asks for the newest one (`latest`, empty or left out). */
export function isLatestPackageVersion(version: string | undefined): boolean {
  return version === undefined || version === '' || version === LATEST_PACKAGE_VERSION;
}

/** A package id `<organization id>/<package name>` split in two, or undefined when it is not one. */
export function splitPackageId(id: string): { organizationId: string; name: string } | undefined {
  const cut = id.indexOf('/');
  if (cut <= 0 || cut === id.length - 1 || id.indexOf('/', cut + 1) >= 0) return undefined;
  return { organizationId: id.slice(0, cut), name: id.slice(cut + 1) };
}

/** What a `${packages...}` placeholder asks for: a package by local name, of a type when written. */
export interface PackageReference {
  /** The type written in the placeholder; undefined for `${packages.NAME}`. */
  readonly type: string | undefined;
  readonly name: string;
}

/** Key of a package placeholder: `packages.NAME` or `packages.TYPE.NAME`. */
const PACKAGE_KEY_PATTERN = /^packages(?:\.([^.]+))?\.([\w:/-]+)$/;

/** The package a placeholder key (the text inside `${...}`) refers to, or undefined when it is not a package key. */
export function parsePackageKey(key: string): PackageReference | undefined {
  const m = PACKAGE_KEY_PATTERN.exec(key);
  return m ? { type: m[1], name: m[2] as string } : undefined;
}

/** The type a reference looks for: the one written, else `ml_model`. */
export function referencedType(ref: PackageReference): string {
  return ref.type ?? DEFAULT_PLACEHOLDER_PACKAGE_TYPE;
}

/** The placeholder text for a package: `${packages.TYPE.NAME}`. */
export function packagePlaceholder(type: PackageType, name: string): string {
  return `\${packages.${type}.${name}}`;
}

/**
 * Folder the machine server puts a package in:
 * `<home>/packages/data/<type>/<package id with "/" as "-">-<version with "." as "_">`.
 * Pass the version the machine downloads (the newest one's for `latest`).
 */
export function packageFolder(home: string, entry: { readonly package: string; readonly type: string }, version: string): string {
  return `${home}/packages/data/${entry.type}/${entry.package.replace(/\//g, '-')}-${version.replace(/\./g, '_')}`;
}

/** What placeholder checks know of a machine's packages. */
export interface KnownPackages {
  /** Local name -> type (undefined when the entry's type is unusable). */
  readonly types: ReadonlyMap<string, string | undefined>;
  /** The list itself, or an entry's name, is unusable: unknown names are not reported. */
  readonly unknown: boolean;
}

/** No packages at all. */
export const NO_PACKAGES: KnownPackages = { types: new Map(), unknown: false };

/** What the placeholder checks need of a raw `packages` list (entries too broken to parse included). */
export function knownPackages(raw: readonly unknown[] | undefined, listBroken: boolean): KnownPackages {
  const types = new Map<string, string | undefined>();
  let unknown = listBroken;
  for (const item of raw ?? []) {
    const name = item !== null && typeof item === 'object' ? (item as Record<string, unknown>).name : undefined;
    const type = item !== null && typeof item === 'object' ? (item as Record<string, unknown>).type : undefined;
    if (typeof name !== 'string') unknown = true;
    else if (!types.has(name)) types.set(name, typeof type === 'string' ? type : undefined);
  }
  return { types, unknown };
}

function namesOf(packages: KnownPackages): string {
  const names = [...packages.types.entries()].map(([n, t]) => `${n} (${t ?? '?'})`);
  return names.length > 0 ? names.join(', ') : '(none)';
}

/**
 * The problem with a package placeholder at `path` in what `owner` names (`resource "cam"`,
 * `module "slam"`), if any: it names no package of the machine, or one of another type than
 * it asks for. A warning: the service stores such a config, and the machine server leaves
 * the placeholder as written (it logs the failed replacement), so only what uses it fails.
 */
export function checkPackageReference(
  ref: PackageReference,
  text: string,
  path: string,
  packages: KnownPackages,
  owner: string,
): Issue | undefined {
  const found = packages.types.get(ref.name);
  const leftAsWritten = `${owner}: placeholder ${text} is left as written, and what reads it fails`;
  if (!packages.types.has(ref.name)) {
    if (packages.unknown) return undefined;
    const fix = `declare a package named ${JSON.stringify(ref.name)} on the machine (a Package construct, or a "packages" entry)`;
    return certainIssue(
      'package-placeholder',
      path,
      `${leftAsWritten}: failed to find a package named ${JSON.stringify(ref.name)}; this machine's packages: ${namesOf(packages)}; ${fix}`,
      packages.types.size > 0 ? `use the name of one of those packages, or ${fix}` : fix,
    );
  }
  const wanted = referencedType(ref);
  if (found === undefined || found === wanted) return undefined;
  const fix = `write \${packages.${found}.${ref.name}}`;
  return certainIssue(
    'package-placeholder',
    path,
    `${leftAsWritten}: it is looking for a package of type ${wanted} but a package of type ${found} was found; ${fix}`,
    fix,
  );
}

const NAME_HINT = 'start with a letter or digit and use only letters, digits, "_" and "-"';

/** Checks one `packages` entry: its name, package id and type. */
export function checkPackageEntry(entry: PackageConfig, path: string): Issue[] {
  const issues: Issue[] = [];
  const namePath = childPath(path, 'name');
  if (entry.name === '') issues.push(errorIssue('package-name', namePath, 'package name is empty', NAME_HINT));
  else if (!PACKAGE_NAME_PATTERN.test(entry.name))
    issues.push(errorIssue('package-name', namePath, `invalid package name ${JSON.stringify(entry.name)}`, NAME_HINT));
  if (entry.name.length > PACKAGE_NAME_MAX_LENGTH) {
    issues.push(
      errorIssue(
        'package-name',
        namePath,
        `package name is ${entry.name.length} characters long; at most ${PACKAGE_NAME_MAX_LENGTH} are allowed`,
        'choose a shorter name',
      ),
    );
  }
  if (!splitPackageId(entry.package)) {
    issues.push(
      errorIssue(
        'package-id',
        childPath(path, 'package'),
        `invalid package ${JSON.stringify(entry.package)}`,
        'write "<organization id>/<package name>", e.g. "acme-org-id/box-detector"',
      ),
    );
  }
  if (entry.type === undefined) {
    issues.push(
      errorIssue(
        'package-type',
        childPath(path, 'type'),
        `package "${entry.name}" has no type`,
        `add "type": one of ${PACKAGE_TYPES.join(', ')}`,
      ),
    );
  } else if (!isPackageType(entry.type)) {
    issues.push(
      errorIssue(
        'package-type',
        childPath(path, 'type'),
        `unsupported package type ${JSON.stringify(entry.type)}`,
        `use one of ${PACKAGE_TYPES.join(', ')}`,
      ),
    );
  }
  return issues;
}

/** Duplicate local names of a machine's packages. */
export function checkUniquePackageNames(entries: ReadonlyArray<{ readonly value: PackageConfig; readonly path: string }>): Issue[] {
  const issues: Issue[] = [];
  const seen = new Map<string, string>();
  for (const e of entries) {
    const first = seen.get(e.value.name);
    if (first !== undefined) {
      issues.push(
        errorIssue(
          'duplicate-package-name',
          childPath(e.path, 'name'),
          `duplicate package name "${e.value.name}" (also ${first})`,
          'package names are unique per machine; rename one',
        ),
      );
    } else seen.set(e.value.name, e.path);
  }
  return issues;
}

/**
 * Why the machine server cannot replace a package placeholder (`text` as written, e.g.
 * `${packages.ml_model.cam}`) with the machine's packages (local name -> type), in its own
 * words; undefined when it can.
 */
export function placeholderReplacementError(
  ref: PackageReference,
  text: string,
  packages: ReadonlyMap<string, string>,
): string | undefined {
  const key = text.replace(/^\$\{|\}$/g, '');
  const found = packages.get(ref.name);
  if (found === undefined) return `failed to find a package named ${JSON.stringify(ref.name)} for placeholder ${JSON.stringify(key)}`;
  const wanted = referencedType(ref);
  if (found === wanted) return undefined;
  return (
    `placeholder ${JSON.stringify(key)} is looking for a package of type ${JSON.stringify(wanted)} but a package of type ` +
    `${JSON.stringify(found)} was found. Try ${JSON.stringify(`packages.${found}.${ref.name}`)}`
  );
}
