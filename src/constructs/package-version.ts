import * as fs from 'node:fs';
import * as path from 'node:path';

let cached: string | undefined;

/** fleetform's own version (package.json, two folders above both src/constructs and dist/constructs). */
export function packageVersion(): string {
  cached ??= (JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
  return cached;
}
