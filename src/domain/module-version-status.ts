import coerce from 'semver/functions/coerce';
import lt from 'semver/functions/lt';
import { certainIssue, childPath, warningIssue, type Issue } from './issue';
import { isCertainFailure, type Acknowledgment } from './certainty';
import { isObject } from './json-value';
import type { ModuleVersion } from './registry';
import { policyAdmits, resolveModuleVersion, type ResolvedModuleVersion, type VersionPolicy } from './version-policy';

/** The finding codes of a module pinned to a version the registry deprecated, or one the machine's viam-server is too old for. */
export const MODULE_DEPRECATED_CODE = 'module-deprecated';
export const MODULE_VIAM_SERVER_CODE = 'module-viam-server';

/**
 * Whether a viam-server version is older than a module version's minimum; undefined when
 * either is no version (a leading `v` and a prerelease are read as their release).
 */
export function serverOlderThan(server: string, minimum: string): boolean | undefined {
  const s = coerce(server);
  const m = coerce(minimum);
  return s && m ? lt(s, m) : undefined;
}

/** Why a version policy moves past a version on a machine running `server` (undefined: unknown); undefined when it does not. */
export function whySkipped(v: ModuleVersion, server: string | undefined): string | undefined {
  if (v.deprecated !== undefined) return v.deprecated ? `deprecated (${v.deprecated})` : 'deprecated';
  if (v.minViamServerVersion && server !== undefined && serverOlderThan(server, v.minViamServerVersion) === true) {
    return `needs viam-server ${v.minViamServerVersion}, the machine runs ${server}`;
  }
  return undefined;
}

/** A version a policy moved past, and why. */
export interface SkippedVersion {
  readonly version: string;
  readonly reason: string;
}

/** What a policy runs among versions a machine may take, and the newer versions it admits but skipped. */
export interface PolicyResolution {
  readonly resolved: ResolvedModuleVersion | undefined;
  readonly skipped: readonly SkippedVersion[];
}

/**
 * Resolves a policy as {@link resolveModuleVersion} does, among the versions the machine may
 * take: a policy other than an exact version skips deprecated versions and those whose
 * minimum viam-server is above the machine's (when its version is known). An exact version
 * runs whatever the registry says of it. `skipped` lists the admitted versions passed over
 * that are newer than the one it runs (every one when it runs none).
 */
export function resolvePolicyOnMachine(
  policy: VersionPolicy,
  versions: readonly ModuleVersion[],
  server: string | undefined,
  deployed?: string,
): PolicyResolution {
  const all = versions.map((v) => v.version);
  if (policy.kind === 'patch') return { resolved: resolveModuleVersion(policy, all, deployed), skipped: [] };
  const passed: { version: ModuleVersion; reason: string }[] = [];
  const eligible: string[] = [];
  for (const v of versions) {
    const reason = whySkipped(v, server);
    if (reason === undefined) eligible.push(v.version);
    else if (policyAdmits(policy, v.version)) passed.push({ version: v, reason });
  }
  const resolved = resolveModuleVersion(policy, eligible, deployed);
  const skipped = passed
    .filter((p) => resolved === undefined || newer(p.version.version, resolved.version, versions))
    .map((p) => ({ version: p.version.version, reason: p.reason }));
  return { resolved, skipped };
}

/** Whether `a` comes after `b` in the registry's ascending order (the order `versions` holds). */
function newer(a: string, b: string, versions: readonly ModuleVersion[]): boolean {
  const order = versions.map((v) => v.version);
  const ia = order.indexOf(a);
  const ib = order.indexOf(b);
  return ib < 0 || ia > ib;
}

/**
 * What a module pinned to exactly `v` meets on a machine running `server`: a deprecated
 * version still runs (a warning); one needing a newer viam-server certainly fails when the
 * machine's version is known, and may when it is not.
 */
export function pinnedVersionFindings(moduleId: string, v: ModuleVersion, server: string | undefined, path: string): Issue[] {
  const issues: Issue[] = [];
  if (v.deprecated !== undefined) {
    issues.push(
      warningIssue(
        MODULE_DEPRECATED_CODE,
        path,
        `${moduleId}@${v.version} is deprecated${v.deprecated ? `: ${v.deprecated}` : ''}; the machine still runs it`,
        'move to a version the registry does not deprecate',
      ),
    );
  }
  const minimum = v.minViamServerVersion;
  if (minimum) {
    const older = server === undefined ? undefined : serverOlderThan(server, minimum);
    if (older === true) {
      issues.push(
        certainIssue(
          MODULE_VIAM_SERVER_CODE,
          path,
          `${moduleId}@${v.version} needs viam-server ${minimum}; the machine runs ${server}: it will not start the module`,
          `update the machine's viam-server to ${minimum} or later, or pin an older version`,
        ),
      );
    } else if (older === undefined) {
      issues.push(
        warningIssue(
          MODULE_VIAM_SERVER_CODE,
          path,
          `${moduleId}@${v.version} needs viam-server ${minimum}; the machine's version is not known`,
          `check that the machine runs viam-server ${minimum} or later`,
        ),
      );
    }
  }
  return issues;
}

/**
 * What adopting a stored config acknowledges of its own modules: each one pinned to a
 * version that needs a newer viam-server than the machine runs (`versionsOf` gives the
 * registry's versions of a module id), at the path plans name it (`modules.NAME.version`).
 */
export function storedServerFailures(
  config: Readonly<Record<string, unknown>>,
  versionsOf: (moduleId: string) => readonly ModuleVersion[] | undefined,
  server: string | undefined,
): Acknowledgment[] {
  const modules: unknown[] = Array.isArray(config.modules) ? config.modules : [];
  return modules.flatMap((m): Acknowledgment[] => {
    if (!isObject(m) || typeof m.module_id !== 'string' || typeof m.version !== 'string' || typeof m.name !== 'string') return [];
    const pinned = versionsOf(m.module_id)?.find((v) => v.version === m.version);
    if (!pinned) return [];
    const path = childPath(childPath('modules', m.name), 'version');
    return pinnedVersionFindings(m.module_id, pinned, server, path)
      .filter(isCertainFailure)
      .map((issue) => ({ code: issue.code, path, reason: `broken when adopted: ${issue.message}` }));
  });
}
