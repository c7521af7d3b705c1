'use strict';
// The `node` devDependency (Node 22 for the cdktn-cli suite, which needs Node >= 22.19) is
// run by its path, node_modules/node/bin/node. npm links its `node` bin into
// node_modules/.bin, which npm scripts put first on PATH: left there, jest and every child
// process of the tests would run on Node 22 instead of the machine's Node, against native
// addons built for that one. So `prepare` (run by a plain `npm install` of this project,
// never in a project that installs fleetform) removes the link and its Windows shims first.
const fs = require('node:fs');
const path = require('node:path');

const bin = path.join(__dirname, '..', 'node_modules', '.bin');
for (const name of ['node', 'node.cmd', 'node.ps1']) fs.rmSync(path.join(bin, name), { force: true });
