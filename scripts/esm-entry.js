'use strict';
// Writes dist/index.mjs, the package's ES module entry: the named exports of the CommonJS
// build, so `import { Machine } from 'fleetform'` and `require('fleetform')` share one copy.
// An argument names another build folder (the build writes into a fresh one first).
const fs = require('node:fs');
const path = require('node:path');

const dist = path.resolve(process.argv[2] ?? path.join(__dirname, '..', 'dist'));
const entry = require(path.join(dist, 'index.js'));
const names = Object.keys(entry).filter((name) => name !== 'default' && /^[A-Za-z_$][\w$]*$/.test(name)).sort();
if (names.length === 0) throw new Error('dist/index.js exports nothing: the build is broken');
const text = [
  "import entry from './index.js';",
  '',
  `export const { ${names.join(', ')} } = entry;`,
  'export default entry;',
  '',
].join('\n');
fs.writeFileSync(path.join(dist, 'index.mjs'), text);
