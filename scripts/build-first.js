'use strict';
// Jest's global setup: about ten suites run the command line (bin/fleetform.js), which loads
// the compiled dist/, not src/. When any input of the build is newer than the build's last
// output, this builds first (npm run build) and says so, so a test never runs stale code.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
/** What the build reads: the sources, its TypeScript settings and the scripts writing the cdktn flavour and the ES module entries. */
const INPUTS = [
  'src',
  'tsconfig.json',
  'tsconfig.build.json',
  path.join('scripts', 'build.js'),
  path.join('scripts', 'cdk-flavours.js'),
  path.join('scripts', 'esm-entry.js'),
];
/** What the build writes last (scripts/esm-entry.js, after tsc and swc): its time is the build's. */
const STAMP = path.join('dist', 'index.mjs');

/** The newest file of `entry` (a file or a folder, recursively), with its modification time. */
function newest(root, entry) {
  const full = path.join(root, entry);
  let stat;
  try {
    stat = fs.statSync(full);
  } catch {
    return undefined;
  }
  if (!stat.isDirectory()) return { file: entry, mtimeMs: stat.mtimeMs };
  let found;
  for (const child of fs.readdirSync(full)) {
    const candidate = newest(root, path.join(entry, child));
    if (candidate && (!found || candidate.mtimeMs > found.mtimeMs)) found = candidate;
  }
  return found;
}

/**
 * Why the build in `root` is stale: its output is missing, or names the input changed
 * since it was written; undefined when dist/ is current.
 */
function staleness(root = ROOT) {
  let built;
  try {
    built = fs.statSync(path.join(root, STAMP)).mtimeMs;
  } catch {
    return `${STAMP} is missing`;
  }
  for (const input of INPUTS) {
    const changed = newest(root, input);
    if (changed && changed.mtimeMs > built) return `${changed.file} changed after the last build`;
  }
  return undefined;
}

module.exports = async function buildFirst() {
  const why = staleness();
  if (why === undefined) return;
  const started = Date.now();
  process.stderr.write(
    `\ndist/ is older than src/ (${why}): building it first with npm run build, as the suites that run bin/fleetform.js load dist/\n`,
  );
  try {
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  } catch (err) {
    throw new Error(`npm run build failed, so the tests would run stale code:\n${err.stdout ?? ''}${err.stderr ?? ''}`, { cause: err });
  }
  process.stderr.write(`built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
};
module.exports.staleness = staleness;
