import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

test('fleetform --version and -V print the package version and exit 0', () => {
  const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  for (const flag of ['--version', '-V']) {
    expect(execFileSync(process.execPath, [path.join(ROOT, 'bin', 'fleetform.js'), flag], { encoding: 'utf8' })).toBe(`${version}\n`);
  }
});
