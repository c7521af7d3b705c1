import { Redactor, REDACTED, secretForms, urlSecrets } from '../../src/engine/redactor';

const KEY = 'k3yS3cr3t-0123456789abcdefXYZ/+=';
const TOKEN = 'dashboard-token-5f2c9a7e1b';

const redactor = (): Redactor => new Redactor().add(KEY).add(TOKEN);

describe('Redactor', () => {
  test('a secret in clear, JSON-escaped and URL-encoded is redacted', () => {
    const r = new Redactor().add('pa"ss\\word/with spaces&more');
    expect(r.redact('x pa"ss\\word/with spaces&more y')).toBe(`x ${REDACTED} y`);
    expect(r.redact(JSON.stringify({ e: 'pa"ss\\word/with spaces&more' }))).toBe(`{"e":"${REDACTED}"}`);
    expect(r.redact(`?q=${encodeURIComponent('pa"ss\\word/with spaces&more')}`)).toBe(`?q=${REDACTED}`);
  });

  test.each([
    ['base64', (s: string) => Buffer.from(s).toString('base64')],
    ['base64url', (s: string) => Buffer.from(s).toString('base64url')],
    ['hex', (s: string) => Buffer.from(s).toString('hex')],
    ['HEX', (s: string) => Buffer.from(s).toString('hex').toUpperCase()],
  ])('a secret in %s is redacted', (_name, encode) => {
    const text = `before ${encode(KEY)} after`;
    const out = redactor().redact(text);
    expect(out).toContain(REDACTED);
    expect(out).not.toContain(encode(KEY).slice(0, 12));
    expect(out.startsWith('before ')).toBe(true);
  });

  test.each([1, 2, 3, 4])('a secret inside a longer base64 text (after %i other bytes) is redacted', (lead) => {
    const encoded = Buffer.from(`${'a'.repeat(lead)}token=${KEY};`).toString('base64');
    const out = redactor().redact(encoded);
    expect(out).toContain(REDACTED);
    // What is left decodes to no 8 characters of the key.
    const left = out.split(REDACTED).map((p) => Buffer.from(p, 'base64').toString('latin1'));
    for (const part of left) for (let i = 0; i + 8 <= KEY.length; i++) expect(part).not.toContain(KEY.slice(i, i + 8));
  });

  test('a long prefix of a secret is redacted, with whatever of the secret follows it', () => {
    expect(redactor().redact(`key=${KEY.slice(0, 8)}...`)).toBe(`key=${REDACTED}...`);
    expect(redactor().redact(`key=${KEY.slice(0, 20)}!`)).toBe(`key=${REDACTED}!`);
    const hex = Buffer.from(KEY).toString('hex');
    expect(redactor().redact(`h=${hex.slice(0, 16)}`)).toBe(`h=${REDACTED}`);
    // Fewer than 8 characters of a secret are ordinary text.
    expect(redactor().redact(`key=${KEY.slice(0, 7)}`)).toBe(`key=${KEY.slice(0, 7)}`);
  });

  test('a secret under 12 characters is found whole only', () => {
    const r = new Redactor().add('hunter2abc');
    expect(r.redact('pw hunter2abc')).toBe(`pw ${REDACTED}`);
    expect(r.redact('pw hunter2ab')).toBe('pw hunter2ab');
  });

  test('overlapping and adjacent secrets are redacted as one span, every character of each gone', () => {
    const r = new Redactor().add('abcdefghijklmnop').add('ijklmnopqrstuvwx');
    expect(r.redact('<abcdefghijklmnopqrstuvwx>')).toBe(`<${REDACTED}>`);
    expect(r.redact('<abcdefghijklmnop|ijklmnopqrstuvwx>')).toBe(`<${REDACTED}|${REDACTED}>`);
    const nested = new Redactor().add('secret-outer-value-123').add('outer-value');
    expect(nested.redact('[secret-outer-value-123]')).toBe(`[${REDACTED}]`);
  });

  test('short common strings are never secrets, and text without a secret is left as it is', () => {
    const r = new Redactor().add('true').add('admin').add('8080').add('');
    expect(r.size).toBe(0);
    expect(r.redact('admin set true on 8080')).toBe('admin set true on 8080');
    const text = 'cycle 3 failed: the app exited with code 1; see the log';
    expect(redactor().redact(text)).toBe(text);
    // Base64 or hex of ordinary words does not match a secret's forms by chance.
    expect(redactor().redact('dGhlIGFwcCBleGl0ZWQ= 74686520617070')).toBe('dGhlIGFwcCBleGl0ZWQ= 74686520617070');
  });

  test('redactDeep walks values and leaves a value without secrets untouched', () => {
    const r = redactor();
    const clean = { a: ['x', { b: 'y' }], n: 1 };
    expect(r.redactDeep(clean)).toBe(clean);
    expect(r.redactDeep({ a: [`t ${TOKEN}`], [TOKEN]: 2 })).toEqual({ a: [`t ${REDACTED}`], [REDACTED]: 2 });
  });

  test('the environment gives fleetform variables, webhook URL tokens and variables named like secrets, not ids', () => {
    const r = new Redactor().addEnvironment({
      FLEETFORM_API_KEY: 'api-key-value-000111',
      FLEETFORM_API_KEY_ID: 'key-id-not-secret-42',
      FLEETFORM_WEBHOOK_URLS: 'slack:https://hooks.example.com/services/T0000/B0000/abcdefghijklmnopqrstuvwx',
      PGPASSWORD: 'pg-password-value',
      HOME: '/home/someone-long-name',
    });
    expect(r.redact('api-key-value-000111')).toBe(REDACTED);
    expect(r.redact('key-id-not-secret-42')).toBe('key-id-not-secret-42');
    expect(r.redact('hook abcdefghijklmnopqrstuvwx')).toBe(`hook ${REDACTED}`);
    expect(r.redact('pg-password-value')).toBe(REDACTED);
    expect(r.redact('/home/someone-long-name')).toBe('/home/someone-long-name');
  });

  test('a URL gives its password, long path segments and query values', () => {
    expect(urlSecrets('https://user:s3cr3t%2Fpassword@example.com/a/very-long-token-part?sig=abcdefghijklmnop&x=1')).toEqual([
      's3cr3t/password',
      'very-long-token-part',
      'abcdefghijklmnop',
    ]);
    expect(urlSecrets('not a url')).toEqual([]);
  });

  test('every form of a secret is distinct', () => {
    const forms = secretForms(KEY).map((n) => n.form);
    expect(new Set(forms).size).toBe(forms.length);
    expect(forms).toContain(Buffer.from(KEY).toString('hex').toUpperCase());
  });

  test('with a fleet of secrets (past the one-search-per-form size) every form and prefix is still found', () => {
    const many = Array.from({ length: 200 }, (_, i) => `machine-secret-${String(i).padStart(3, '0')}-${(i * 7919).toString(36)}xyz`);
    const r = new Redactor();
    for (const s of many) r.add(s);
    for (const s of [many[0] as string, many[123] as string, many[199] as string]) {
      expect(r.redact(`a ${s} b`)).toBe(`a ${REDACTED} b`);
      expect(r.redact(`h=${Buffer.from(s).toString('hex')};`)).toBe(`h=${REDACTED};`);
      expect(r.redact(`b=${Buffer.from(s).toString('base64')};`)).not.toContain(Buffer.from(s).toString('base64').slice(0, 11));
      expect(r.redact(`p=${s.slice(0, 9)}`)).toBe(`p=${REDACTED}`);
    }
    expect(r.redact('machine secrets are fine, and so is this line')).toBe('machine secrets are fine, and so is this line');
    expect(r.finds('nothing here at all')).toBe(false);
  });
});
