#!/usr/bin/env node
'use strict';
// The command line, compiled to JavaScript in dist/ by `npm run build`.
let main;
try {
  ({ main } = require('../dist/cli/main.js'));
} catch (err) {
  if (err && err.code === 'MODULE_NOT_FOUND' && String(err.message).includes('dist/cli/main.js')) {
    process.stderr.write('fleetform: the compiled command is missing (dist/cli/main.js)\n  hint: run `npm run build` in the fleetform checkout\n');
    process.exit(1);
  }
  throw err;
}
main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`fleetform: unexpected error: ${err && err.message ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
