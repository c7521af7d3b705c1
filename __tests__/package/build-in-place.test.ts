/**
 * `npm run build` (and so `prepare`, which `npm install` and `npm pack` of a checkout run)
 * never removes or half-writes a file of dist/ while it builds: a command running from the
 * checkout keeps working through a rebuild. Run on a copy of the checkout, so this file's
 * rebuild does not touch the dist/ other suites run.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

function filesUnder(dir: string, base = dir): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(full, base) : [path.relative(base, full)];
  });
}

let work: string;

beforeAll(() => {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-build-'));
  for (const f of ['package.json', 'tsconfig.json', 'tsconfig.build.json', '.swcrc'])
    fs.copyFileSync(path.join(ROOT, f), path.join(work, f));
  for (const d of ['src', 'web', 'scripts', 'bin', 'dist']) fs.cpSync(path.join(ROOT, d), path.join(work, d), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(work, 'node_modules'));
});

afterAll(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

test('a rebuild keeps every file of dist/ in place and whole while a command runs from it', async () => {
  const stale = path.join('cli', 'a-module-no-longer-built.js');
  fs.writeFileSync(path.join(work, 'dist', stale), "'use strict';\n");
  const before = filesUnder(path.join(work, 'dist'));

  // A long-running command started from this checkout's build.
  const serve = spawn(
    process.execPath,
    [path.join(work, 'bin', 'fleetform.js'), 'emulator', 'serve', '--port', '0', '--data', path.join(work, 'data')],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let serveOut = '';
  serve.stdout.on('data', (d: Buffer) => (serveOut += d.toString()));
  serve.stderr.on('data', (d: Buffer) => (serveOut += d.toString()));
  const served = new Promise<number | null>((resolve) => serve.on('close', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    serve.stdout.on('data', () => {
      const m = /listening on (\S+)/.exec(serveOut);
      if (m?.[1]) resolve(m[1]);
    });
    void served.then((code) => reject(new Error(`emulator serve ended (${code}): ${serveOut}`)));
  });

  try {
    await rebuildWhileServing(url, before, stale);
    serve.kill('SIGTERM');
    expect(await served).toBe(0);
    expect(serveOut).toContain('stopped (SIGTERM)');
  } finally {
    if (serve.exitCode === null) serve.kill('SIGKILL');
  }
}, 180_000);

async function rebuildWhileServing(url: string, before: readonly string[], stale: string): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  const build = spawn('npm', ['run', 'build'], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let buildOut = '';
  build.stdout.on('data', (d: Buffer) => (buildOut += d.toString()));
  build.stderr.on('data', (d: Buffer) => (buildOut += d.toString()));
  const built = new Promise<number | null>((resolve) => build.on('close', resolve));

  // Every file present before the build is present, and not empty, at every look during it.
  const missing = new Set<string>();
  let looks = 0;
  let building = true;
  void built.then(() => (building = false));
  while (building) {
    looks += 1;
    for (const rel of before) {
      const size = fs.statSync(path.join(work, 'dist', rel), { throwIfNoEntry: false })?.size;
      if (size === undefined || size === 0) missing.add(rel);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  expect([await built, buildOut]).toEqual([0, expect.stringContaining('kept 1 file(s) this build no longer makes')]);
  expect(looks).toBeGreaterThan(10);
  expect([...missing]).toEqual([]);
  expect(fs.existsSync(path.join(work, 'dist', stale))).toBe(true);
  // The build's scratch folder is gone; the rebuilt dist/ is whole.
  expect(fs.readdirSync(work).filter((n) => n.startsWith('.dist-build-'))).toEqual([]);
  expect(fs.existsSync(path.join(work, 'dist', 'index.mjs'))).toBe(true);

  // The command started before the build still serves (and, above, stops cleanly).
  expect((await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(10_000) })).status).toBe(200);
}
