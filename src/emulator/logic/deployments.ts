/**
 * Module deployments, as pure functions over the domain's version policies:
 * which version each registry module of a machine runs after a config write, and which
 * machines move when a new version is published.
 */
import {
  describeVersionPolicy,
  formatVersionPolicy,
  newestVersion,
  parseVersionPolicy,
  tryParseVersionPolicy,
  resolvePolicyOnMachine,
  type Issue,
  type MachineConfig,
  type ModuleVersion,
} from '../../domain';
import type { DeploymentRecord } from '../store/deployments';

/** The registry as deployments see it: the versions of a module (ascending, with their status), or undefined when it is not a registry module. */
export type ModuleVersionsLookup = (moduleId: string) => readonly ModuleVersion[] | undefined;

/**
 * Deployments for a config just written. A module that keeps its name and module_id keeps
 * its deployed version when the policy still resolves to it; a change of version counts a
 * restart. A module the registry does not have, or whose policy no version satisfies, is
 * stored as written but deployed nowhere (the machine cannot start it): a warning (paths
 * like `modules[1].version`), not a refusal. A version policy skips deprecated versions and
 * those needing a newer viam-server than the machine's `server` (undefined: not known).
 */
export function planDeployments(
  partId: string,
  config: MachineConfig,
  previous: readonly DeploymentRecord[],
  lookup: ModuleVersionsLookup,
  now: number,
  server?: string,
): { deployments: DeploymentRecord[]; issues: Issue[] } {
  const deployments: DeploymentRecord[] = [];
  const issues: Issue[] = [];
  (config.modules ?? []).forEach((m, i) => {
    if (m.type !== 'registry' || m.module_id === undefined || m.version === undefined) return;
    const available = lookup(m.module_id);
    if (available === undefined) {
      issues.push({
        severity: 'warning',
        code: 'module-not-in-registry',
        path: `modules[${i}].module_id`,
        message: `module ${m.module_id} is not in the registry`,
      });
      return;
    }
    // A version no policy form reads is stored as given; the module has nothing to run.
    const policy = tryParseVersionPolicy(m.version);
    if (policy === undefined) {
      issues.push({
        severity: 'warning',
        code: 'module-version-invalid',
        path: `modules[${i}].version`,
        message: `module ${m.name} cannot start: invalid module version ${JSON.stringify(m.version)}`,
      });
      return;
    }
    const before = previous.find((d) => d.moduleName === m.name && d.moduleId === m.module_id);
    const { resolved } = resolvePolicyOnMachine(policy, available, server, before?.deployedVersion);
    if (resolved === undefined) {
      issues.push({
        severity: 'warning',
        code: 'module-version-unavailable',
        path: `modules[${i}].version`,
        message: `no version of ${m.module_id} satisfies ${JSON.stringify(m.version)} (registry has ${available.map((v) => v.version).join(', ') || 'no versions'})`,
      });
      return;
    }
    const moved = before !== undefined && before.deployedVersion !== resolved.version;
    deployments.push({
      partId,
      moduleName: m.name,
      moduleId: m.module_id,
      policy: formatVersionPolicy(policy),
      deployedVersion: resolved.version,
      restartCount: (before?.restartCount ?? 0) + (moved ? 1 : 0),
      updatedAt: before === undefined || moved ? now : before.updatedAt,
    });
  });
  return { deployments, issues };
}

/** The version a deployment moves to once `available` holds a newly published version, if it moves (on a machine running `server`). */
export function automaticUpdateTarget(d: DeploymentRecord, available: readonly ModuleVersion[], server?: string): string | undefined {
  const { resolved } = resolvePolicyOnMachine(parseVersionPolicy(d.policy), available, server, d.deployedVersion);
  return resolved?.automaticUpdate && resolved.version !== d.deployedVersion ? resolved.version : undefined;
}

/** What the module card shows besides the machine: policy, deployed and registry versions. */
export function moduleCardVersions(
  d: DeploymentRecord,
  available: readonly string[],
): { policy: string; policyDescription: string; deployedVersion: string; registryLatest: string; registryLatestPrerelease: string } {
  const policy = parseVersionPolicy(d.policy);
  return {
    policy: formatVersionPolicy(policy),
    policyDescription: describeVersionPolicy(policy),
    deployedVersion: d.deployedVersion,
    registryLatest: newestVersion(available) ?? '',
    registryLatestPrerelease: newestVersion(available, { includePrerelease: true }) ?? '',
  };
}
