import { accessPolicy, decideAccess, isHostName, type RequestFacts } from '../../src/domain/http-access';
import { decodePathPart, jsonObjectBody, targetPath } from '../../src/domain/http-input';

const policy = accessPolicy({ token: 'a-token-of-enough-length', listenHost: '10.1.2.3', allowHosts: ['Fleet.Example.com.'] });
const facts = (over: Partial<RequestFacts>): RequestFacts => ({
  routeClass: 'action',
  host: '127.0.0.1:9464',
  origin: undefined,
  fetchSite: undefined,
  contentType: 'application/json; charset=utf-8',
  credential: 'right',
  ...over,
});
const verdict = (over: Partial<RequestFacts>, p = policy): string => {
  const d = decideAccess(facts(over), p);
  return d.allow ? 'allow' : String(d.status);
};

test('Host names the server: loopback names, the listen address and allowed names; any port', () => {
  for (const host of [
    '127.0.0.1:9464',
    'localhost',
    'LOCALHOST:1',
    '[::1]:9464',
    '10.1.2.3:80',
    'fleet.example.com',
    'fleet.example.com.:443',
  ])
    expect([host, verdict({ host })]).toEqual([host, 'allow']);
  for (const host of ['evil.example:9464', '127.0.0.2:9464', '10.1.2.4', 'localhost.evil.example', ''])
    expect([host, verdict({ host })]).toEqual([host, host === '' ? '400' : '403']);
  expect(verdict({ host: undefined })).toBe('400');
  expect(verdict({ host: 'a b' })).toBe('400');
  expect(verdict({ host: 'user@localhost' })).toBe('400');
  // Listening on every interface adds no name.
  expect(accessPolicy({ listenHost: '0.0.0.0' }).hosts).toEqual(new Set(['localhost', '127.0.0.1', '[::1]']));
  expect(accessPolicy({ listenHost: '::1' }).hosts.has('[::1]')).toBe(true);
});

test('an Origin must be the server’s own: scheme, name and port as the client reached it', () => {
  expect(verdict({ origin: 'http://127.0.0.1:9464' })).toBe('allow');
  expect(verdict({ host: 'fleet.example.com', origin: 'https://fleet.example.com' })).toBe('allow');
  expect(verdict({ host: 'fleet.example.com:443', origin: 'https://fleet.example.com' })).toBe('allow');
  for (const origin of [
    'http://127.0.0.1:9465',
    'http://localhost:9464',
    'null',
    'file://',
    'ftp://127.0.0.1:9464',
    'http://127.0.0.1:9464/x',
  ])
    expect([origin, verdict({ origin })]).toEqual([origin, '403']);
  expect(verdict({ fetchSite: 'same-site' })).toBe('403');
  expect(verdict({ fetchSite: 'cross-site' })).toBe('403');
  expect(verdict({ fetchSite: 'same-origin' })).toBe('allow');
  expect(verdict({ fetchSite: 'none' })).toBe('allow');
});

test('actions need a configured token, the right one, and JSON; probes need nothing; reads the token only when asked', () => {
  expect(verdict({ credential: 'absent' })).toBe('401');
  expect(verdict({ credential: 'wrong' })).toBe('401');
  expect(verdict({ contentType: 'text/plain' })).toBe('415');
  expect(verdict({ contentType: undefined })).toBe('415');
  expect(verdict({ contentType: 'application/jsonx' })).toBe('415');
  const none = accessPolicy({});
  const refused = decideAccess(facts({}), none);
  expect(refused).toMatchObject({ allow: false, status: 403, hint: expect.stringContaining('FLEETFORM_DASHBOARD_TOKEN') });
  expect(verdict({ routeClass: 'probe', host: 'anything', origin: 'http://evil', credential: 'absent' }, none)).toBe('allow');
  expect(verdict({ routeClass: 'read', credential: 'absent' })).toBe('allow');
  expect(verdict({ routeClass: 'nudge', credential: 'absent', contentType: undefined }, none)).toBe('allow');
  expect(verdict({ routeClass: 'nudge', origin: 'http://evil.example' }, none)).toBe('403');
  const readers = accessPolicy({ token: 'a-token-of-enough-length', readersNeedToken: true });
  expect(verdict({ routeClass: 'read', credential: 'absent' }, readers)).toBe('401');
  expect(verdict({ routeClass: 'read', credential: 'right' }, readers)).toBe('allow');
  expect(verdict({ routeClass: 'page', credential: 'absent' }, readers)).toBe('allow');
  expect(verdict({ routeClass: 'page', host: 'evil.example' }, readers)).toBe('403');
});

test('--allow-host takes names and addresses, not URLs', () => {
  expect(['fleet.example.com', '10.0.0.5', '::1', '[::1]'].map(isHostName)).toEqual([true, true, true, true]);
  expect(['https://fleet.example.com', 'fleet.example.com:443', 'a/b', '', 'a b'].map(isHostName)).toEqual([
    false,
    false,
    false,
    false,
    false,
  ]);
});

test('request input: targets, percent-encodings and JSON bodies are refused with a 4xx when malformed', () => {
  expect(targetPath('/a/b?c=%E0')).toEqual({ ok: true, value: '/a/b' });
  expect(targetPath('http://h/x/y?z')).toEqual({ ok: true, value: '/x/y' });
  expect(targetPath('*')).toMatchObject({ ok: false, status: 400 });
  expect(decodePathPart('a%2Fb', 'key')).toEqual({ ok: true, value: 'a/b' });
  for (const bad of ['%E0', '%', '%zz', '%C0%80', '%ED%A0%80'])
    expect(decodePathPart(bad, 'key')).toMatchObject({ ok: false, status: 400 });
  const body = (text: string | number[]) => jsonObjectBody(typeof text === 'string' ? Buffer.from(text) : Uint8Array.from(text));
  expect(body('')).toEqual({ ok: true, value: {} });
  expect(body('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
  for (const bad of ['{', '[]', '"x"', 'null', '{"a":"\\ud800"}', '{"\\udc00":1}']) expect([bad, body(bad).ok]).toEqual([bad, false]);
  expect(body([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x22, 0x7d])).toMatchObject({
    ok: false,
    message: expect.stringMatching(/UTF-8/),
  });
  expect(body('{"a":"\\ud83d\\ude00"}')).toEqual({ ok: true, value: { a: '😀' } });
});
