/**
 * The key of the digests that stand for secrets in state: 32 random bytes in a file of
 * mode 0600 in the user's fleetform data folder, never in the state itself, so a copied
 * state file (or a database dump) reveals nothing about the secrets it tracks. Teams
 * sharing one state share the file (FLEETFORM_SECRET_KEY_FILE points at it).
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FleetformError } from '../../domain/errors';

export const SECRET_KEY_FILE_ENV = 'FLEETFORM_SECRET_KEY_FILE';

/** Where the key lives: FLEETFORM_SECRET_KEY_FILE, else `$XDG_DATA_HOME/fleetform/state-secret.key` (default `~/.local/share`). */
export function secretKeyFile(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env[SECRET_KEY_FILE_ENV];
  if (explicit) return path.resolve(explicit);
  const dataHome = env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share');
  return path.join(dataHome, 'fleetform', 'state-secret.key');
}

const KEY_BYTES = 32;
let cached: { file: string; key: Buffer } | undefined;

/** The key, created on first use; an unreadable or damaged key file is an error naming it. */
export function secretKey(env: NodeJS.ProcessEnv = process.env): Buffer {
  const file = secretKeyFile(env);
  if (cached?.file === file) return cached.key;
  let key: Buffer;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    try {
      fs.writeFileSync(file, randomBytes(KEY_BYTES).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
  } catch (err) {
    throw new FleetformError(`cannot read or create the state secret key ${file}: ${(err as Error).message}`, {
      path: file,
      hint: `make its folder writable, or point ${SECRET_KEY_FILE_ENV} at a file of your own (mode 0600)`,
    });
  }
  if (key.length !== KEY_BYTES) {
    throw new FleetformError(`the state secret key ${file} is damaged (expected ${KEY_BYTES * 2} hex digits)`, {
      path: file,
      hint: 'restore it from where your team keeps it; deleting it makes every secret show as changed once',
    });
  }
  cached = { file, key };
  return key;
}
