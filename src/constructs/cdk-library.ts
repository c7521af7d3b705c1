import { FleetformError } from '../domain/errors';

/** A CDK library the construct layer can be built on, and the fleetform entry built on it. */
export interface CdkFlavour {
  /** The npm package: `cdktf` or `cdktn`. */
  readonly library: string;
  /** The fleetform entry point whose constructs extend that library's classes. */
  readonly entry: string;
}

export const CDKTF: CdkFlavour = { library: 'cdktf', entry: 'fleetform' };
export const CDKTN: CdkFlavour = { library: 'cdktn', entry: 'fleetform/cdktn' };

function isMissing(err: unknown, library: string): boolean {
  const { code, message } = err as { code?: unknown; message?: unknown };
  return code === 'MODULE_NOT_FOUND' && typeof message === 'string' && message.includes(`'${library}'`);
}

function installed(library: string): boolean {
  try {
    require.resolve(library);
    return true;
  } catch {
    return false;
  }
}

/**
 * Loads the CDK library of an entry point. Both libraries are optional peer dependencies:
 * when the entry's library is missing the error names it, and the hint names the entry to
 * import instead when the project has the other library (the entry is never switched
 * silently: constructs of one library in an app of the other fail at synth).
 */
export function loadCdkLibrary<T>(flavour: CdkFlavour, load: () => T, isInstalled: (library: string) => boolean = installed): T {
  try {
    return load();
  } catch (err) {
    if (!isMissing(err, flavour.library)) throw err;
    const other = flavour === CDKTF ? CDKTN : CDKTF;
    const hint = isInstalled(other.library)
      ? `this project has ${other.library}: import the constructs from '${other.entry}' instead of '${flavour.entry}'`
      : `install CDK Terrain for a new project (npm install cdktn constructs) and import from '${CDKTN.entry}', or install cdktf (npm install cdktf constructs) for a CDKTF project and import from '${CDKTF.entry}'`;
    throw new FleetformError(`${flavour.entry}: the constructs need the ${flavour.library} package, which is not installed`, {
      hint,
      cause: err,
    });
  }
}
