/**
 * A machine's packages against the registry, at plan: every package (at the version it
 * names, or its newest for `latest`) must exist there, or the machine would fail to load
 * it. Each registry read is shared by every machine of the run.
 */
import type { RegistryPackage, RegistryPackageType } from '../../api/client';
import { childPath } from '../../domain/json-path';
import { isLatestPackageVersion, isPackageType, splitPackageId, PackageConfigSchema, type PackageConfig } from '../../domain/packages';
import { ServiceError } from '../../api/client/errors';
import type { KindContext, PlanProblem } from '../kind';

/** The package entries of a config that can be checked (malformed ones are reported by validation). */
export function packageEntries(config: Record<string, unknown>): PackageConfig[] {
  const list = Array.isArray(config.packages) ? config.packages : [];
  return list.flatMap((raw) => {
    const parsed = PackageConfigSchema.safeParse(raw);
    return parsed.success && splitPackageId(parsed.data.package) && isPackageType(parsed.data.type ?? '') ? [parsed.data] : [];
  });
}

function registryPackage(ctx: KindContext, id: string, version: string, type: RegistryPackageType): Promise<RegistryPackage | undefined> {
  return ctx.memo(`package:${type}:${id}@${version}`, () => ctx.client.packagesClient.getPackage(id, version, type));
}

/** The versions the registry has of a package, newest last; undefined when they cannot be listed. */
function registryVersions(ctx: KindContext, id: string): Promise<string[] | undefined> {
  const parsed = splitPackageId(id);
  if (!parsed) return Promise.resolve(undefined);
  return ctx.memo(`package-versions:${id}`, async () => {
    try {
      return (await ctx.client.packagesClient.listPackages(parsed.organizationId, { name: parsed.name })).map((p) => p.version);
    } catch {
      // Another organization's package: its versions are not ours to list.
      return undefined;
    }
  });
}

/** Where a package's version is in a machine's plan view. */
export function packageVersionPath(entry: PackageConfig): string {
  return childPath(childPath('config.packages', entry.name), 'version');
}

/** The packages (or versions) of the entries that the registry does not have. */
export async function missingPackages(ctx: KindContext, entries: readonly PackageConfig[]): Promise<PackageConfig[]> {
  const found = await Promise.all(entries.map((e) => ownPackageFound(ctx, e)));
  return entries.filter((_, i) => !found[i]);
}

/**
 * Whether the registry has an entry's package; another organization's package (a public one
 * the machine downloads) cannot be read with this key, so it is not reported missing.
 */
async function ownPackageFound(ctx: KindContext, e: PackageConfig): Promise<boolean> {
  try {
    return (
      (await registryPackage(
        ctx,
        e.package,
        isLatestPackageVersion(e.version) ? 'latest' : (e.version as string),
        e.type as RegistryPackageType,
      )) !== undefined
    );
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'PERMISSION_DENIED') return true;
    throw err;
  }
}

/** A plan problem for a package the registry does not have, listing the versions it has. */
export async function missingPackageProblem(ctx: KindContext, entry: PackageConfig): Promise<PlanProblem> {
  const versions = await registryVersions(ctx, entry.package);
  const latest = isLatestPackageVersion(entry.version);
  const has =
    versions === undefined
      ? ''
      : versions.length === 0
        ? '; the registry has no version of it'
        : `; the registry has versions ${versions.join(', ')}`;
  return {
    path: packageVersionPath(entry),
    message: latest
      ? `package ${entry.name} (${entry.package}, ${entry.type}) is not in the registry${has}`
      : `package ${entry.name}: the registry has no ${entry.type} ${entry.package} at version ${entry.version as string}${has}`,
    hint: 'upload the model (an MlModel) or train it (a TrainingJob, deployed with machine.deployModel) first, or name a version the registry has',
  };
}
