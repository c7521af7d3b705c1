/**
 * API key secrets and access tokens. Keys are stored as salted scrypt hashes and checked in
 * constant time; tokens are random and stored as SHA-256 hashes. Neither is kept in clear.
 */
import * as crypto from 'node:crypto';

const SCRYPT_KEYLEN = 32;

/** A new API key secret: 32 characters of lowercase letters and digits, like the service's. */
export function generateApiKeySecret(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = crypto.randomBytes(32);
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
}

/** Salt and scrypt hash of a key secret. */
export function hashApiKey(secret: string): { salt: Buffer; hash: Buffer } {
  const salt = crypto.randomBytes(16);
  return { salt, hash: crypto.scryptSync(secret, salt, SCRYPT_KEYLEN) };
}

/** The stored hash of `secret` under `salt`: the deliberately slow derivation every check runs. */
export function deriveApiKeyHash(secret: string, salt: Buffer): Buffer {
  return crypto.scryptSync(secret, salt, SCRYPT_KEYLEN);
}

/** Whether `secret` matches a stored salt and hash. */
export function verifyApiKey(secret: string, salt: Buffer, hash: Buffer, derive = deriveApiKeyHash): boolean {
  const candidate = derive(secret, salt);
  return candidate.length === hash.length && crypto.timingSafeEqual(candidate, hash);
}

/** A key's stored salt and hash. */
export interface StoredApiKey {
  readonly salt: Buffer;
  readonly hash: Buffer;
}

/** How many accepted keys an ApiKeyVerifier remembers before it starts over. */
const REMEMBERED_KEYS = 1_000;

/**
 * Checks key secrets against their stored scrypt hashes like verifyApiKey, remembering each
 * secret it accepted as an HMAC-SHA-256 under a random key of its own (never in clear, never
 * stored): a client that authenticates again with the same key, as every command does when
 * it starts, skips the deliberately slow scrypt. What it remembers holds only for the stored
 * salt and hash it was checked against, so a key issued anew is checked in full; a wrong
 * secret always is.
 */
export class ApiKeyVerifier {
  private readonly hmacKey = crypto.randomBytes(32);
  /** Stored salt and hash (hex) -> HMAC of the secret accepted for them. */
  private readonly accepted = new Map<string, Buffer>();
  /** What an unknown key id is checked against: no secret derives it. */
  private readonly decoy: StoredApiKey = { salt: crypto.randomBytes(16), hash: crypto.randomBytes(SCRYPT_KEYLEN) };

  /** `derive` is the key derivation every check runs (scrypt). */
  constructor(private readonly derive: (secret: string, salt: Buffer) => Buffer = deriveApiKeyHash) {}

  /**
   * Whether `secret` opens `stored`; an unknown key (undefined) costs the same derivation as
   * a known one, so how long a refusal takes does not tell whether the key id exists.
   */
  verifyKey(secret: string, stored: StoredApiKey | undefined): boolean {
    if (stored === undefined) {
      this.verify(secret, this.decoy.salt, this.decoy.hash);
      return false;
    }
    return this.verify(secret, stored.salt, stored.hash);
  }

  verify(secret: string, salt: Buffer, hash: Buffer): boolean {
    const stored = `${salt.toString('hex')}:${hash.toString('hex')}`;
    const digest = crypto.createHmac('sha256', this.hmacKey).update(secret).digest();
    const known = this.accepted.get(stored);
    if (known !== undefined && crypto.timingSafeEqual(known, digest)) return true;
    if (!verifyApiKey(secret, salt, hash, this.derive)) return false;
    if (this.accepted.size >= REMEMBERED_KEYS) this.accepted.clear();
    this.accepted.set(stored, digest);
    return true;
  }
}

/** A new opaque bearer token. */
export function generateAccessToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

/** The stored form of a bearer token. */
export function hashAccessToken(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

/** How long an access token stays valid. */
export const ACCESS_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;
