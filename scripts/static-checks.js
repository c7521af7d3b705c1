#!/usr/bin/env node
'use strict';
// The checks `npm test` runs before jest: the type check of the whole tree, the linter and
// the formatter. Each is single-threaded, so they run side by side; each one's output is
// printed whole once it ends, and the script fails when any of them failed.
const { spawn } = require('node:child_process');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const bin = (name) => path.join(ROOT, 'node_modules', '.bin', name);

/** What runs, by the name printed beside its result. */
const CHECKS = [
  { name: 'types (tsc --noEmit)', command: bin('tsc'), args: ['--noEmit'] },
  {
    name: 'lint (eslint)',
    command: bin('eslint'),
    args: ['.', '--max-warnings', '0', '--cache', '--cache-location', 'node_modules/.cache/eslint/'],
  },
  { name: 'format (prettier --check)', command: bin('prettier'), args: ['--check', '.', '--log-level', 'warn'] },
];

function run(check) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(check.command, check.args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => resolve({ check, code: 1, output: `${error.message}\n`, seconds: 0 }));
    child.on('close', (code) =>
      resolve({ check, code: code ?? 1, output: Buffer.concat(output).toString(), seconds: (Date.now() - started) / 1000 }),
    );
  });
}

async function main() {
  const results = await Promise.all(CHECKS.map(run));
  for (const { check, code, output, seconds } of results) {
    process.stdout.write(`${code === 0 ? 'ok    ' : 'FAILED'} ${check.name} (${seconds.toFixed(1)} s)\n`);
    if (output.trim() !== '') process.stdout.write(`${output.trimEnd()}\n`);
  }
  const failed = results.filter((r) => r.code !== 0).map((r) => r.check.name);
  if (failed.length > 0) {
    process.stderr.write(`static checks failed: ${failed.join(', ')}\n`);
    process.exit(1);
  }
}

void main();
