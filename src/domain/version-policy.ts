import { rememberedByText } from './remembered';
import type { SemVer } from 'semver';
import compare from 'semver/functions/compare';
import eq from 'semver/functions/eq';
import gt from 'semver/functions/gt';
import parse from 'semver/functions/parse';
import valid from 'semver/functions/valid';
import { FleetformError } from './errors';

/** semver's functions, each from its own file: the package's index loads all of semver (about 50 files) wherever the domain loads. */
const semver = { compare, eq, gt, parse, valid };

/**
 * A module's update policy, decoded from the `version` field:
 * - patch `X.Y.Z` (prereleases allowed): pinned, never updates automatically;
 * - minor `~X.Y` (input `X.Y.*` too): newer patch releases of X.Y;
 * - major `^X` (input `X.*` too): newer minor and patch releases of X;
 * - `latest`: the newest release; `latest-with-prerelease`: the newest release or prerelease.
 * Ordering is semver 2.0. Minor, major and latest policies never pick a prerelease.
 */
export type VersionPolicy =
  | { kind: 'patch'; version: string }
  | { kind: 'minor'; major: number; minor: number }
  | { kind: 'major'; major: number }
  | { kind: 'latest' }
  | { kind: 'latest-with-prerelease' };

/** The forms `parseVersionPolicy` accepts, for messages. */
export const ACCEPTED_VERSION_FORMS: readonly string[] = [
  'X.Y.Z (a specific version, prereleases like 1.2.3-rc.1 too; never updates)',
  '~X.Y or X.Y.* (newer patches of X.Y)',
  '^X or X.* (newer minor and patch releases of X)',
  'latest',
  'latest-with-prerelease',
];

const NUM = '(0|[1-9]\\d*)';
const IDENT = '[0-9A-Za-z-]+';
const EXACT = new RegExp(`^${NUM}\\.${NUM}\\.${NUM}(?:-${IDENT}(?:\\.${IDENT})*)?(?:\\+${IDENT}(?:\\.${IDENT})*)?$`);
const MINOR_TILDE = new RegExp(`^~${NUM}\\.${NUM}$`);
const MINOR_STAR = new RegExp(`^${NUM}\\.${NUM}\\.\\*$`);
const MAJOR_CARET = new RegExp(`^\\^${NUM}$`);
const MAJOR_STAR = new RegExp(`^${NUM}\\.\\*$`);

/** Parses without throwing: the policy, or undefined when the text is none of the accepted forms. */
export function tryParseVersionPolicy(text: string): VersionPolicy | undefined {
  if (text === 'latest') return { kind: 'latest' };
  if (text === 'latest-with-prerelease') return { kind: 'latest-with-prerelease' };
  if (EXACT.test(text) && semver.valid(text) !== null) return { kind: 'patch', version: text };
  const minor = MINOR_TILDE.exec(text) ?? MINOR_STAR.exec(text);
  if (minor) return { kind: 'minor', major: Number(minor[1]), minor: Number(minor[2]) };
  const major = MAJOR_CARET.exec(text) ?? MAJOR_STAR.exec(text);
  if (major) return { kind: 'major', major: Number(major[1]) };
  return undefined;
}

/** Whether tryParseVersionPolicy accepts the text (remembered for short texts: a fleet repeats a handful of versions). */
export const isVersionPolicy: (text: string) => boolean = rememberedByText((text) => tryParseVersionPolicy(text) !== undefined, 64);

/** Parses a `version` field; throws a FleetformError listing the accepted forms when it is none of them. */
export function parseVersionPolicy(text: string): VersionPolicy {
  const policy = tryParseVersionPolicy(text);
  if (policy === undefined) {
    throw new FleetformError(`invalid module version ${JSON.stringify(text)}`, {
      hint: `use one of: ${ACCEPTED_VERSION_FORMS.join('; ')}`,
    });
  }
  return policy;
}

/** The form the service stores: `1.2.3`, `~1.2`, `^1`, `latest`, `latest-with-prerelease`. */
export function formatVersionPolicy(p: VersionPolicy): string {
  switch (p.kind) {
    case 'patch':
      return p.version;
    case 'minor':
      return `~${p.major}.${p.minor}`;
    case 'major':
      return `^${p.major}`;
    case 'latest':
    case 'latest-with-prerelease':
      return p.kind;
  }
}

/** A short human description, e.g. `minor ~1.2: newer patches of 1.2`. */
export function describeVersionPolicy(p: VersionPolicy): string {
  switch (p.kind) {
    case 'patch':
      return `patch ${p.version}: pinned, never updates automatically`;
    case 'minor':
      return `minor ~${p.major}.${p.minor}: newer patches of ${p.major}.${p.minor}`;
    case 'major':
      return `major ^${p.major}: newer minor and patch releases of ${p.major}`;
    case 'latest':
      return 'latest: always the newest release';
    case 'latest-with-prerelease':
      return 'latest-with-prerelease: always the newest release or prerelease';
  }
}

function parsed(version: string): SemVer | undefined {
  if (!EXACT.test(version)) return undefined;
  return semver.parse(version) ?? undefined;
}

/** Whether a registry version may run under the policy (build metadata is ignored). */
export function policyAdmits(p: VersionPolicy, version: string): boolean {
  const v = parsed(version);
  if (!v) return false;
  const release = v.prerelease.length === 0;
  switch (p.kind) {
    case 'patch': {
      const pinned = parsed(p.version);
      return pinned !== undefined && semver.eq(v, pinned);
    }
    case 'minor':
      return release && v.major === p.major && v.minor === p.minor;
    case 'major':
      return release && v.major === p.major;
    case 'latest':
      return release;
    case 'latest-with-prerelease':
      return true;
  }
}

/** The newest valid semver in a list (releases only unless includePrerelease); invalid entries are ignored. */
export function newestVersion(available: readonly string[], options: { includePrerelease?: boolean } = {}): string | undefined {
  let best: { text: string; v: SemVer } | undefined;
  for (const text of available) {
    const v = parsed(text);
    if (!v) continue;
    if (!options.includePrerelease && v.prerelease.length > 0) continue;
    if (!best || semver.gt(v, best.v)) best = { text, v };
  }
  return best?.text;
}

/** What a module must run: the version, and whether moving to it is an automatic update (which restarts the module). */
export interface ResolvedModuleVersion {
  version: string;
  automaticUpdate: boolean;
}

/**
 * Resolves the version a module runs, given its policy, the registry's versions and
 * the version deployed now (if any).
 * - Patch: the pinned version when the registry has it (never an automatic update).
 * - Other policies: the newest registry version the policy admits; when the registry
 *   lists none, the deployed version if the policy admits it.
 * - `automaticUpdate` is true exactly when a non-patch policy moves a deployed module
 *   to a newer version; first deployments and downgrades are not automatic updates.
 * Undefined when no version satisfies the policy.
 */
export function resolveModuleVersion(p: VersionPolicy, available: readonly string[], deployed?: string): ResolvedModuleVersion | undefined {
  if (p.kind === 'patch') {
    const pinned = available.find((v) => policyAdmits(p, v));
    return pinned === undefined ? undefined : { version: pinned, automaticUpdate: false };
  }
  const candidate = newestVersion(
    available.filter((v) => policyAdmits(p, v)),
    { includePrerelease: p.kind === 'latest-with-prerelease' },
  );
  if (candidate === undefined) {
    if (deployed !== undefined && policyAdmits(p, deployed)) return { version: deployed, automaticUpdate: false };
    return undefined;
  }
  const current = deployed === undefined ? undefined : parsed(deployed);
  const automaticUpdate = current !== undefined && semver.gt(candidate, current);
  return { version: candidate, automaticUpdate };
}

/**
 * Sorts ascending by semver 2.0 precedence (prereleases before their release); strings
 * that are not semver keep their order, before all valid versions.
 */
export function sortBySemver<T>(items: readonly T[], version: (item: T) => string): T[] {
  const invalid = items.filter((i) => semver.valid(version(i)) === null);
  const valid = items.filter((i) => semver.valid(version(i)) !== null);
  valid.sort((a, b) => semver.compare(version(a), version(b)));
  return [...invalid, ...valid];
}

/**
 * The version a registry module of a machine runs, as fleetform decides it: a module
 * given no version runs the version it was pinned to at its first apply, else the newest
 * release; one with a version policy runs what the policy resolves to among `available`.
 * Undefined when nothing qualifies (or the policy text is not one).
 */
export function moduleVersionToRun(
  policyText: string | undefined,
  pinned: string | undefined,
  available: readonly string[],
): string | undefined {
  if (!policyText) return pinned ?? newestVersion(available);
  const policy = tryParseVersionPolicy(policyText);
  return policy ? resolveModuleVersion(policy, available)?.version : undefined;
}
