#!/usr/bin/env node
'use strict';
// Runs the TypeScript sources directly: users' CDKTF apps are TypeScript too.
require('tsx/cjs/api').register();
const { main } = require('../src/cli/main.ts');
main(process.argv).then(
  (code) => { process.exitCode = code; },
  (err) => {
    process.stderr.write(`fleetform: unexpected error: ${err && err.message ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
