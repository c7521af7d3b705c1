/**
 * The private channel of an app fleetform runs: Secret.fromValue of either build of the
 * construct library (cdktf's, cdktn's, both in one app) writes each value to the channel's
 * pipe, one id per call in the order of the calls, and the reference holds only the id.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { appEnvironment } from '../../src/cli/app-environment';
import { startAppProcess } from '../../src/cli/app-process';
import { readAppSecretMessages } from '../../src/domain/secret-reference';

const ROOT = path.resolve(__dirname, '../..');

const APP = `
const cdktf = require(${JSON.stringify(path.join(ROOT, 'dist', 'index.js'))});
const cdktn = require(${JSON.stringify(path.join(ROOT, 'dist', 'cdktn.js'))});
const refs = [cdktf.Secret.fromValue('first-value'), cdktn.Secret.fromValue('second-value')].map((s) => s.toJSON());
process.stderr.write(JSON.stringify(refs));
`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'fleetform-app-channel-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('both builds hand their values over the pipe; the references name ids only', async () => {
  writeFileSync(path.join(dir, 'app.js'), APP);
  const env = appEnvironment(process.env, { app: 'node app.js', context: {}, terraformModules: [] }, path.join(dir, 'out'), {
    preload: path.join(ROOT, 'dist', 'cli', 'app-reporter.js'),
    reportFile: path.join(dir, 'report.json'),
  });
  const exit = await startAppProcess('node app.js', dir, env).exit;
  expect({ code: exit.code, stderr: exit.stderr.startsWith('[') ? 'references' : exit.stderr }).toEqual({ code: 0, stderr: 'references' });
  expect(JSON.parse(exit.stderr)).toEqual([
    { from: 'app', id: 'value-1' },
    { from: 'app', id: 'value-2' },
  ]);
  expect([...readAppSecretMessages(exit.channel).values]).toEqual([
    ['value-1', 'first-value'],
    ['value-2', 'second-value'],
  ]);
});
