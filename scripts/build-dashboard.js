'use strict';
// Builds the dashboard's page into <out>/dashboard/page: web/dashboard is type-checked
// (with the browser's types, which src/ does not have) and bundled with preact by esbuild
// into one script, beside its HTML and CSS. Served as static files: nothing is loaded from
// elsewhere at run time.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');

const root = path.join(__dirname, '..');
const web = path.join(root, 'web', 'dashboard');
const out = path.join(process.argv[2] ?? path.join(root, 'dist'), 'dashboard', 'page');

const checked = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(web, 'tsconfig.json')], {
  cwd: root,
  stdio: 'inherit',
});
if (checked.status !== 0) throw new Error(`the dashboard page does not type-check (exit ${checked.status ?? checked.signal})`);

fs.mkdirSync(out, { recursive: true });
esbuild.buildSync({
  entryPoints: [path.join(web, 'main.tsx')],
  outfile: path.join(out, 'app.js'),
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'linked',
  logLevel: 'warning',
});
for (const file of ['index.html', 'app.css']) fs.copyFileSync(path.join(web, file), path.join(out, file));
