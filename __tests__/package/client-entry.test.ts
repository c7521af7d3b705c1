/**
 * The built package's client entry: `fleetform/client` resolves through the package's own
 * `exports` (as an installed package resolves it), in CommonJS and as an ES module, to the
 * same client the root entry still gives for one minor version; its names are the
 * client's, with no construct among them.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

function node(args: readonly string[]): Promise<string> {
  return new Promise((done, fail) => {
    execFile(process.execPath, [...args], { cwd: ROOT }, (err, stdout, stderr) =>
      err ? fail(new Error(`${err.message}\n${stderr}`)) : done(stdout.trim()),
    );
  });
}

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'client.js')))
    throw new Error('dist/client.js is missing: run `npm run build` (npm test does) before this suite');
});

test('require("fleetform/client") gives the client, without loading cdktf or cdktn, the same the root gives', async () => {
  const out = await node([
    '-e',
    [
      "const c = require('fleetform/client');",
      'const cdk = Object.keys(require.cache).some((f) => /node_modules[\\/]cdkt[fn][\\/]/.test(f));',
      "const r = require('fleetform');",
      "console.log(JSON.stringify({ create: typeof c.createServiceClient, same: c.createServiceClient === r.createServiceClient && c.ServiceError === r.ServiceError, construct: 'Machine' in c || 'FleetProvider' in c, cdk, resolved: require.resolve('fleetform/client') }));",
    ].join('\n'),
  ]);
  expect(JSON.parse(out)).toEqual({
    create: 'function',
    same: true,
    construct: false,
    cdk: false,
    resolved: join(ROOT, 'dist', 'client.js'),
  });
});

test('import "fleetform/client" gives the same copy as require', async () => {
  const out = await node([
    '--input-type=module',
    '-e',
    "import { createServiceClient, isNotFound } from 'fleetform/client'; import { createRequire } from 'node:module'; const required = createRequire(process.cwd() + '/')('fleetform/client'); console.log(createServiceClient === required.createServiceClient && isNotFound === required.isNotFound);",
  ]);
  expect(out).toBe('true');
});
