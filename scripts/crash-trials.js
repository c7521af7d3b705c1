'use strict';
// `npm run crash-trials`: 100 kill trials of `fleetform apply` (CRASH_TRIALS, CRASH_SEED).
// `npm run crash-trials -- --terraform`: 100 kill trials on the Terraform path, of
// `terraform apply` and of its provider (TF_CRASH_TRIALS, TF_CRASH_SEED).
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const terraform = process.argv.includes('--terraform');
const env = { ...process.env };
if (terraform) env.TF_CRASH_TRIALS = env.TF_CRASH_TRIALS || '100';
else env.CRASH_TRIALS = env.CRASH_TRIALS || '100';
const suite = terraform ? '__tests__/provider/terraform-crash' : '__tests__/crash/crash-trials';
const jest = require.resolve('jest/bin/jest');
const args = [jest, suite, ...(terraform ? ['-t', 'killed at'] : [])];
const r = spawnSync(process.execPath, args, { cwd: path.join(__dirname, '..'), env, stdio: 'inherit' });
process.exit(r.status ?? 1);
