import { knownMistakeHint, stderrExcerpt } from '../../src/cli/app-failure';

describe('the excerpt of an app stderr', () => {
  test('keeps the lines as written, indented, with stack frames counted', () => {
    const stderr = [
      'build failed',
      'Error: no site "lab"',
      '    at main (/p/main.ts:3:9)',
      '    at Object.<anonymous> (/p/main.ts:9:1)',
      'giving up',
      '',
    ].join('\n');
    expect(stderrExcerpt(stderr)).toBe(['  build failed', '  Error: no site "lab"', '      ... 2 stack frames', '  giving up'].join('\n'));
  });

  test('shows the last lines of a long one and counts the rest', () => {
    const stderr = Array.from({ length: 12 }, (_, i) => `l${i + 1}`).join('\r\n');
    expect(stderrExcerpt(stderr, 3)).toBe(['  (9 earlier lines not shown)', '  l10', '  l11', '  l12'].join('\n'));
  });

  test('is empty for an app that wrote nothing (or only blank lines)', () => {
    expect(stderrExcerpt('')).toBe('');
    expect(stderrExcerpt('\n\n')).toBe('');
  });
});

describe('hints for known setup mistakes', () => {
  test.each([
    [
      "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'fleetform' imported from /p/main.mjs",
      /^install fleetform in the project \(npm install fleetform\)/,
    ],
    ["Error: Cannot find module '@acme/fleet-parts/sensors'", /^install @acme\/fleet-parts in the project/],
    ["Error: Cannot find module './stacks'", /^check the path \.\/stacks the app imports/],
    ['TypeError [ERR_UNKNOWN_FILE_EXTENSION]: Unknown file extension ".ts" for /p/main.ts', /^Node does not run TypeScript by itself here/],
    ['SyntaxError: Cannot use import statement outside a module', /^the app mixes ES modules and CommonJS/],
    ['Error [ERR_REQUIRE_ESM]: require() of ES Module /p/node_modules/x/index.js not supported.', /^the app mixes ES modules and CommonJS/],
    ["main.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.", /^the app does not type-check/],
    ['FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory', /^the app ran out of memory/],
    ['sh: 1: tsx-typo: not found', /^the command in cdktf.json "app" was not found/],
  ])('%s', (text, hint) => {
    expect(knownMistakeHint(text)).toMatch(hint);
  });

  test('a missing fleetform is installed by the spec given for it, never by its name alone (it is not on the registry)', () => {
    const spec = (pkg: string) => (pkg === 'fleetform' ? 'file:../fleetform' : pkg);
    const missing = "Error: Cannot find module 'fleetform/cdktn'";
    expect(knownMistakeHint(missing, 1, spec)).toBe(
      'install fleetform in the project (npm install file:../fleetform), or run fleetform in the folder whose node_modules holds it',
    );
    expect(knownMistakeHint("Cannot find package 'cdktn'", 1, spec)).toMatch(/^install cdktn in the project \(npm install cdktn\)/);
  });

  test('a shell exit status of 127 is a command not found; other failures get no hint', () => {
    expect(knownMistakeHint('', 127)).toMatch(/^the command in cdktf.json "app" was not found/);
    expect(knownMistakeHint('deploy-fleet: no site "lab"', 1)).toBeUndefined();
  });
});
