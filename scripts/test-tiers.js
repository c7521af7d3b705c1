'use strict';
// Which tier a test suite belongs to, read from what the suite uses, so a new suite is placed
// without a list to keep. A suite is `integration` when it, or a helper of __tests__ it imports,
// starts a real part: the emulator, a child process (the command line, terraform, npm, git, the
// cdktf/cdktn CLIs), PostgreSQL or Chromium. Every other suite is `unit`: in-process code only,
// quick enough for `npm run test:unit` while working. The package suites (`npm pack` into a
// scratch project) form a tier of their own, as they share one packed tarball.
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const TESTS = path.join(ROOT, '__tests__');
/** What a suite or helper says when it starts a real part. */
const REAL_PARTS = /startEmulator|node:child_process|puppeteer|ensure-postgres|postgres-server|pg-backend|terraform-cli/;
/** The suites that install the packed package into a scratch project. */
const PACKAGE_SUITES = [
  path.join('__tests__', 'package', 'packaging.test.ts'),
  path.join('__tests__', 'package', 'cdktn-package.test.ts'),
  path.join('__tests__', 'package', 'init-project.test.ts'),
  path.join('__tests__', 'package', 'reconcile-install.test.ts'),
];

/** Local helpers `file` imports, resolved to files under __tests__. */
function localImports(file, text) {
  const found = [];
  for (const [, spec] of text.matchAll(/(?:from|require\(|import\()\s*'(\.{1,2}\/[^']+)'/g)) {
    const base = path.resolve(path.dirname(file), spec);
    if (!base.startsWith(TESTS + path.sep)) continue;
    const hit = [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((c) => fs.existsSync(c) && fs.statSync(c).isFile());
    if (hit) found.push(hit);
  }
  return found;
}

/** True when `file` or a helper it reaches starts a real part. */
function startsRealPart(file, seen = new Set()) {
  if (seen.has(file)) return false;
  seen.add(file);
  const text = fs.readFileSync(file, 'utf8');
  return REAL_PARTS.test(text) || localImports(file, text).some((helper) => startsRealPart(helper, seen));
}

function testFiles(dir = TESTS) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** The suites of each tier, as paths relative to the project root. */
function tiers() {
  const result = { unit: [], integration: [], package: [] };
  for (const file of testFiles()) {
    const relative = path.relative(ROOT, file);
    const tier = PACKAGE_SUITES.includes(relative) ? 'package' : startsRealPart(file) ? 'integration' : 'unit';
    result[tier].push(relative);
  }
  return result;
}

module.exports = { tiers };

if (require.main === module) {
  for (const [tier, files] of Object.entries(tiers()))
    process.stdout.write(`${tier} (${files.length}):\n${files.map((f) => `  ${f}\n`).join('')}`);
}
