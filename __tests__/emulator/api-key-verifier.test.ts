import { ApiKeyVerifier, generateApiKeySecret, hashApiKey } from '../../src/emulator/auth/keys';

describe('ApiKeyVerifier', () => {
  test('accepts the right secret, again and again', () => {
    const secret = generateApiKeySecret();
    const { salt, hash } = hashApiKey(secret);
    const keys = new ApiKeyVerifier();
    expect(keys.verify(secret, salt, hash)).toBe(true);
    expect(keys.verify(secret, salt, hash)).toBe(true);
  });

  test('refuses a wrong secret, before and after the right one was accepted', () => {
    const secret = generateApiKeySecret();
    const { salt, hash } = hashApiKey(secret);
    const keys = new ApiKeyVerifier();
    expect(keys.verify(`${secret}x`, salt, hash)).toBe(false);
    expect(keys.verify(secret, salt, hash)).toBe(true);
    expect(keys.verify(`${secret}x`, salt, hash)).toBe(false);
    expect(keys.verify('', salt, hash)).toBe(false);
  });

  test('a secret accepted for one stored hash does not open another', () => {
    const first = generateApiKeySecret();
    const second = generateApiKeySecret();
    const stored = hashApiKey(first);
    const other = hashApiKey(second);
    const keys = new ApiKeyVerifier();
    expect(keys.verify(first, stored.salt, stored.hash)).toBe(true);
    expect(keys.verify(first, other.salt, other.hash)).toBe(false);
    expect(keys.verify(second, stored.salt, stored.hash)).toBe(false);
    expect(keys.verify(second, other.salt, other.hash)).toBe(true);
  });

  test('a key issued anew under the same secret is checked against its new hash', () => {
    const secret = generateApiKeySecret();
    const old = hashApiKey(secret);
    const keys = new ApiKeyVerifier();
    expect(keys.verify(secret, old.salt, old.hash)).toBe(true);
    const replaced = hashApiKey(generateApiKeySecret());
    expect(keys.verify(secret, replaced.salt, replaced.hash)).toBe(false);
  });
});
