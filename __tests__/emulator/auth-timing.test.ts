/**
 * Authenticate refuses an unknown key id after the same key derivation as a known key with
 * a wrong secret: counted, not timed, so the test says why and cannot flake.
 */
import * as fs from 'node:fs';
import { Code, ConnectError } from '@connectrpc/connect';
import { ApiKeyVerifier, deriveApiKeyHash, generateApiKeySecret, hashApiKey } from '../../src/emulator/auth/keys';
import { openDatabase } from '../../src/emulator/db/database';
import { authService } from '../../src/emulator/rpc/auth';
import { ensureSeeded } from '../../src/emulator/seed';
import { tempDir } from './helpers';

/** A verifier counting the derivations it runs. */
function countingVerifier(): { keys: ApiKeyVerifier; derivations: () => number } {
  let n = 0;
  const keys = new ApiKeyVerifier((secret, salt) => {
    n += 1;
    return deriveApiKeyHash(secret, salt);
  });
  return { keys, derivations: () => n };
}

test('the verifier derives once for an unknown key, once for a wrong secret, and not again for a secret it accepted', () => {
  const { keys, derivations } = countingVerifier();
  const secret = generateApiKeySecret();
  const stored = hashApiKey(secret);
  expect(keys.verifyKey(secret, undefined)).toBe(false);
  expect(derivations()).toBe(1);
  expect(keys.verifyKey(`${secret}x`, stored)).toBe(false);
  expect(derivations()).toBe(2);
  expect(keys.verifyKey(secret, stored)).toBe(true);
  expect(derivations()).toBe(3);
  // Accepted once, remembered as an HMAC: no derivation the second time.
  expect(keys.verifyKey(secret, stored)).toBe(true);
  expect(derivations()).toBe(3);
  // A decoy is never opened, by any secret.
  expect(keys.verifyKey('', undefined)).toBe(false);
});

test('Authenticate runs the key derivation for an unknown key id, an empty one, and a known one with a wrong secret alike', async () => {
  const dir = tempDir();
  const db = openDatabase(dir);
  try {
    const creds = ensureSeeded(db, dir, Date.now());
    const { keys, derivations } = countingVerifier();
    const service = authService({ db, now: () => Date.now() }, keys);
    const authenticate = service.authenticate as (req: { entity: string; credentials?: { type: string; payload: string } }) => unknown;
    const refusal = (entity: string, payload: string): string => {
      try {
        authenticate({ entity, credentials: { type: 'api-key', payload } });
        return 'accepted';
      } catch (err) {
        return err instanceof ConnectError ? `${Code[err.code]}: ${err.rawMessage}` : String(err);
      }
    };
    const counted = (entity: string, payload: string): [string, number] => {
      const before = derivations();
      return [refusal(entity, payload), derivations() - before];
    };
    const denied = 'PermissionDenied: failed to authenticate: invalid API key or API key ID';
    expect(counted('no-such-key-id', creds.apiKey)).toEqual([denied, 1]);
    expect(counted('', creds.apiKey)).toEqual([denied, 1]);
    expect(counted(creds.apiKeyId, `${creds.apiKey}x`)).toEqual([denied, 1]);
    expect(counted(creds.apiKeyId, creds.apiKey)).toEqual(['accepted', 1]);
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
