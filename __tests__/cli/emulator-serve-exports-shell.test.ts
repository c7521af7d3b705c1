/** The lines `fleetform emulator serve` prints for another shell, run by a real shell: they set the key from its file, whatever the folder's name. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { exportLines } from '../../src/cli/commands/emulator-serve-run';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ff-serve-exports-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.each(['data', "the team's data $HOME `x`", 'with "double" quotes'])('a data folder named %j', (name) => {
  const folder = path.join(dir, name);
  mkdirSync(folder);
  const file = path.join(folder, 'credentials.json');
  writeFileSync(file, JSON.stringify({ apiKeyId: 'key-id-1', apiKey: 'local-dev-key-1' }));
  const lines = exportLines('http://127.0.0.1:8080', file).slice(1);
  expect(lines.join('\n')).not.toContain('local-dev-key-1');
  const script = `${lines.join('\n')}\nprintf '%s|%s|%s' "$FLEETFORM_ENDPOINT" "$FLEETFORM_API_KEY_ID" "$FLEETFORM_API_KEY"`;
  const out = execFileSync('sh', ['-c', script], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  expect(out).toBe('http://127.0.0.1:8080|key-id-1|local-dev-key-1');
});
