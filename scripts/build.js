'use strict';
// Builds dist/ without ever removing or half-writing a file a running fleetform uses: tsc
// (declarations), swc (JavaScript), the cdktn flavour, the ES module entries and the dashboard's page write into a fresh folder beside
// dist/, and each file then replaces its old copy in dist/ by a rename, which is atomic. A
// command started from the old build keeps finding every file it may load later. Files
// the new build no longer makes are kept (a running command may still load them) and
// counted; `npm run clean` removes dist/ when nothing runs from it.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const dist = path.join(root, 'dist');

function run(script, args) {
  const r = spawnSync(process.execPath, [script, ...args], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${path.relative(root, script)} ${args.join(' ')} failed (${r.status ?? r.signal})`);
}

function filesUnder(dir, base = dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(full, base) : [path.relative(base, full)];
  });
}

/** Moves every file of `from` to the same place under `to`, replacing old copies atomically; returns what moved. */
function publish(from, to) {
  const moved = filesUnder(from);
  for (const rel of moved) {
    fs.mkdirSync(path.dirname(path.join(to, rel)), { recursive: true });
    fs.renameSync(path.join(from, rel), path.join(to, rel));
  }
  return moved;
}

const staging = fs.mkdtempSync(path.join(root, '.dist-build-'));
try {
  run(require.resolve('typescript/bin/tsc'), ['-p', 'tsconfig.build.json', '--outDir', staging]);
  run(path.join(path.dirname(require.resolve('@swc/cli/package.json')), 'bin', 'swc.js'), [
    'src',
    '-d',
    staging,
    '--strip-leading-paths',
    '--quiet',
  ]);
  run(path.join(__dirname, 'cdk-flavours.js'), [staging]);
  run(path.join(__dirname, 'esm-entry.js'), [staging]);
  run(path.join(__dirname, 'build-dashboard.js'), [staging]);
  const built = new Set(publish(staging, dist));
  const kept = filesUnder(dist).filter((rel) => !built.has(rel));
  if (kept.length > 0) {
    process.stdout.write(
      `dist/: kept ${kept.length} file(s) this build no longer makes (a running command may load them); \`npm run clean\` removes dist/\n`,
    );
  }
} finally {
  fs.rmSync(staging, { recursive: true, force: true });
}
