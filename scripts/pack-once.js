'use strict';
// Jest's global setup of the `package` tier: `npm pack` of the built package once, for every
// package suite (cdktf and cdktn projects, a project of `fleetform init`), and the better-sqlite3 addon this checkout built
// from source at its own install, laid out as a local prebuild, so the scratch projects
// install the same binary instead of compiling it once more each (nothing is downloaded).
// The paths reach the suites through the environment; global teardown removes them.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const ADDON = path.join(ROOT, 'node_modules', 'better-sqlite3');

/** The file name prebuild-install looks for in a local prebuilds folder, for this Node and machine. */
function prebuildName(version) {
  const libc = process.report?.getReport?.().header?.glibcVersionRuntime ? '' : 'musl';
  return `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}${libc}-${process.arch}.tar.gz`;
}

module.exports = async function packOnce() {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'index.js')))
    throw new Error('dist/ is missing: run `npm run build` (npm test does) before the package suites');
  const binary = path.join(ADDON, 'build', 'Release', 'better_sqlite3.node');
  if (!fs.existsSync(binary)) throw new Error(`${binary} is missing: run \`npm install\` (it builds better-sqlite3 from source)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-packed-'));
  const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' });
  const tarball = path.join(dir, packed.trim().split('\n').pop());
  const prebuilds = path.join(dir, 'prebuilds');
  fs.mkdirSync(prebuilds);
  const { version } = JSON.parse(fs.readFileSync(path.join(ADDON, 'package.json'), 'utf8'));
  execFileSync('tar', [
    '-czf',
    path.join(prebuilds, prebuildName(version)),
    '-C',
    ADDON,
    path.join('build', 'Release', 'better_sqlite3.node'),
  ]);
  process.env.FLEETFORM_PACKED_DIR = dir;
  process.env.FLEETFORM_PACKED_TARBALL = tarball;
  process.env.FLEETFORM_PACKED_PREBUILDS = prebuilds;
};
