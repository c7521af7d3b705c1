'use strict';
// Writes dist/index.mjs, dist/cdktn.mjs and dist/client.mjs, the package's ES module entries:
// the named exports of the CommonJS build, so `import { Machine } from 'fleetform'` and
// `require('fleetform')` share one copy (and the same for 'fleetform/cdktn' and 'fleetform/client').
// An argument names another build folder (the build writes into a fresh one first).
const fs = require('node:fs');
const path = require('node:path');

const dist = path.resolve(process.argv[2] ?? path.join(__dirname, '..', 'dist'));
for (const name of ['index', 'cdktn', 'client']) {
  const entry = require(path.join(dist, `${name}.js`));
  const names = Object.keys(entry)
    .filter((key) => key !== 'default' && /^[A-Za-z_$][\w$]*$/.test(key))
    .sort();
  if (names.length === 0) throw new Error(`dist/${name}.js exports nothing: the build is broken`);
  const text = [`import entry from './${name}.js';`, '', `export const { ${names.join(', ')} } = entry;`, 'export default entry;', ''].join(
    '\n',
  );
  fs.writeFileSync(path.join(dist, `${name}.mjs`), text);
}
