#!/usr/bin/env node
'use strict';
// The command line, compiled to JavaScript in dist/ by `npm run build`.
// Output piped into a command that stops reading (`| head`) ends the run quietly, as other CLIs do.
process.stdout.on('error', (err) => {
  if (err && err.code === 'EPIPE') process.exit(process.exitCode || 0);
  throw err;
});
let main;
let apps;
try {
  // The user's app starts first and runs while the rest loads.
  apps = require('../dist/cli/early-start.js').startEarly(process.argv, process.cwd());
  ({ main } = require('../dist/cli/main.js'));
} catch (err) {
  if (err && err.code === 'MODULE_NOT_FOUND' && /dist\/cli\/(main|early-start)\.js/.test(String(err.message))) {
    process.stderr.write(
      'fleetform: the compiled command is missing (dist/cli/main.js)\n  hint: run `npm run build` in the fleetform checkout\n',
    );
    process.exit(1);
  }
  throw err;
}
main(process.argv, apps).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`fleetform: unexpected error: ${err && err.message ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
