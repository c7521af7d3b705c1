import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as cdktf from 'cdktf';
import * as cdktn from 'cdktn';
import * as cdkOfCdktf from '../../src/constructs/cdk';
import * as cdkOfCdktn from '../../src/constructs/cdk-cdktn';
import { CDKTF, CDKTN, loadCdkLibrary } from '../../src/constructs/cdk-library';
import { FleetformError } from '../../src/domain/errors';

const missing = (library: string) => () => {
  // What Node throws for a package that is not installed.
  const err = new Error(
    `Cannot find module '${library}'\nRequire stack:\n- /app/node_modules/fleetform/dist/constructs/cdk.js`,
  ) as Error & { code: string };
  err.code = 'MODULE_NOT_FOUND';
  throw err;
};

describe('the CDK library bindings of the two entries', () => {
  test('export the same names, each bound to its own library', () => {
    expect(Object.keys(cdkOfCdktn).sort()).toEqual(Object.keys(cdkOfCdktf).sort());
    for (const name of Object.keys(cdkOfCdktf) as (keyof typeof cdkOfCdktf)[]) {
      expect(cdkOfCdktf[name]).toBe(cdktf[name]);
      expect(cdkOfCdktn[name]).toBe(cdktn[name]);
    }
    // The two libraries are copies, not one re-exporting the other: a wrong binding would show here.
    expect(cdktn.TerraformResource).not.toBe(cdktf.TerraformResource);
  });
});

describe('the construct layer', () => {
  test('reaches cdktf and cdktn only through the bindings (the build copies every other module to the cdktn entry as it is)', () => {
    const src = path.resolve(__dirname, '../../src');
    const bindings = ['constructs/cdk.ts', 'constructs/cdk-cdktn.ts'];
    // The text of a new project's main.ts, which imports cdktn in the user's project, not here.
    const templates = ['engine/project/template-main.ts'];
    const direct = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)['"](cdktf|cdktn)(?:\/[^'"]*)?['"]/;
    const offenders = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && ![...bindings, ...templates].includes(file.split(path.sep).join('/')))
      .filter((file) => direct.test(readFileSync(path.join(src, file), 'utf8')));
    expect(offenders).toEqual([]);
    // The pattern itself finds what it must.
    for (const line of [
      "import { Token } from 'cdktf';",
      "import type { App } from 'cdktn/lib/app';",
      "const c = require('cdktf');",
      'await import("cdktn")',
    ])
      expect(direct.test(line)).toBe(true);
  });
});

describe('loadCdkLibrary', () => {
  test('returns what the library loads to', () => {
    expect(loadCdkLibrary(CDKTN, () => cdktn)).toBe(cdktn);
  });

  test('neither library installed: the error names the entry and the library, the hint both ways to install', () => {
    const err = (() => {
      try {
        return loadCdkLibrary(CDKTN, missing('cdktn'), () => false);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(FleetformError);
    expect((err as FleetformError).format()).toBe(
      'fleetform/cdktn: the constructs need the cdktn package, which is not installed\n' +
        "  hint: install CDK Terrain for a new project (npm install cdktn constructs) and import from 'fleetform/cdktn', or install cdktf (npm install cdktf constructs) for a CDKTF project and import from 'fleetform'",
    );
  });

  test('the other library installed: the hint names the entry to import instead', () => {
    expect(() => loadCdkLibrary(CDKTF, missing('cdktf'), (library) => library === 'cdktn')).toThrow(
      expect.objectContaining({ hint: "this project has cdktn: import the constructs from 'fleetform/cdktn' instead of 'fleetform'" }),
    );
    expect(() => loadCdkLibrary(CDKTN, missing('cdktn'), (library) => library === 'cdktf')).toThrow(
      expect.objectContaining({ hint: "this project has cdktf: import the constructs from 'fleetform' instead of 'fleetform/cdktn'" }),
    );
  });

  test('another missing module (a broken install of the library) is not reported as the library missing', () => {
    expect(() => loadCdkLibrary(CDKTF, missing('fflate'), () => true)).toThrow("Cannot find module 'fflate'");
  });
});
