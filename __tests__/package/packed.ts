/**
 * The package packed once for the package suites (scripts/pack-once.js, the global setup of
 * jest's `package` tier), and the project settings that install it as users do.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Packed {
  /** The `npm pack` tarball of the built package. */
  readonly tarball: string;
  /** A local prebuilds folder holding the better-sqlite3 addon this checkout built from source. */
  readonly prebuilds: string;
}

export function packed(): Packed {
  const tarball = process.env.FLEETFORM_PACKED_TARBALL;
  const prebuilds = process.env.FLEETFORM_PACKED_PREBUILDS;
  if (!tarball || !prebuilds || !existsSync(tarball)) {
    throw new Error(
      'the packed package is missing: run the package suites through jest (its `package` project packs it first in scripts/pack-once.js)',
    );
  }
  return { tarball, prebuilds };
}

/**
 * Native addons in `project` come from the local prebuild of this checkout's own build (the
 * same version, built from source at its install), never from a download.
 */
export function useLocalPrebuilds(project: string, prebuilds: string): void {
  writeFileSync(join(project, '.prebuild-installrc'), `local-prebuilds=${prebuilds}\n`);
}
