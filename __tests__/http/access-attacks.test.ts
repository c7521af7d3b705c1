/**
 * The attacks tried on fleetform's own servers, each refused by the one access rule: the
 * reconciler's API, the dashboard inside it and the dashboard's own server. Hosts and
 * origins are sent as a DNS-rebinding or cross-origin page in a browser would send them.
 */
import { raw, startSurfaces, TOKEN, withToken, type Surfaces } from './surfaces';

let s: Surfaces;
beforeEach(async () => {
  s = await startSurfaces();
});
afterEach(() => s.close());

const own = (url: string): string => new URL(url).host;

describe('the reconciler API', () => {
  test('approve, override and heal without the token are refused and nothing is done', async () => {
    const url = s.reconciler.url;
    for (const target of ['/api/approve/fleet', '/api/override', '/api/heal']) {
      const answer = await raw(url, {
        method: 'POST',
        target,
        headers: { 'content-type': 'application/json' },
        body: '{"windows":"open","for":"1h"}',
      });
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body)).toMatchObject({ error: 'actions need the token', hint: expect.stringContaining('Bearer') });
      const wrong = await raw(url, {
        method: 'POST',
        target,
        headers: { ...withToken(), authorization: 'Bearer not-the-token' },
        body: '{}',
      });
      expect(wrong.status).toBe(401);
    }
    expect(s.reconciler.handle.asked).toEqual([]);
  });

  test('with the token, JSON and its own Origin, approve, override and heal are taken', async () => {
    const url = s.reconciler.url;
    const headers = withToken({ origin: `http://${own(url)}`, 'sec-fetch-site': 'same-origin' });
    expect((await raw(url, { method: 'POST', target: '/api/approve/fleet', headers, body: '{}' })).status).toBe(200);
    expect((await raw(url, { method: 'POST', target: '/api/override', headers, body: '{"windows":"open","for":"1h"}' })).status).toBe(200);
    expect((await raw(url, { method: 'POST', target: '/api/heal', headers: withToken() })).status).toBe(202);
    expect(s.reconciler.handle.asked).toEqual(['approve fleet', 'override open until', 'heal']);
  });

  test('a cross-origin no-cors form post (text/plain, another port of 127.0.0.1) is refused, token or not', async () => {
    const url = s.reconciler.url;
    const form = { origin: 'http://127.0.0.1:5173', 'sec-fetch-site': 'same-site', 'content-type': 'text/plain;charset=UTF-8' };
    for (const headers of [form, { ...form, authorization: `Bearer ${TOKEN}` }]) {
      const answer = await raw(url, { method: 'POST', target: '/api/approve/fleet', headers, body: '{"stack":"fleet"}' });
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body).error).toMatch(/127\.0\.0\.1:5173.*refused/);
    }
    // A browser that sends no Origin still says where the request comes from.
    const noOrigin = await raw(url, {
      method: 'POST',
      target: '/api/heal',
      headers: withToken({ 'sec-fetch-site': 'cross-site' }),
      body: '{}',
    });
    expect(noOrigin.status).toBe(403);
    // The token and the right Origin, but a form's content type.
    const textPlain = await raw(url, {
      method: 'POST',
      target: '/api/heal',
      headers: withToken({ 'content-type': 'text/plain' }),
      body: '{}',
    });
    expect(textPlain.status).toBe(415);
    expect(s.reconciler.handle.asked).toEqual([]);
  });

  test('a DNS-rebinding Host is refused for reads and actions; loopback names and allowed names are served', async () => {
    const url = s.reconciler.url;
    const port = new URL(url).port;
    for (const target of ['/api/status', '/api/events', '/dashboard/api/snapshot', '/dashboard/']) {
      const answer = await raw(url, { target, headers: { host: `attacker.example:${port}` } });
      expect(answer.status).toBe(403);
      expect(answer.body).toContain('--allow-host attacker.example');
    }
    const action = await raw(url, {
      method: 'POST',
      target: '/api/heal',
      headers: withToken({ host: `attacker.example:${port}`, origin: `http://attacker.example:${port}` }),
      body: '{}',
    });
    expect(action.status).toBe(403);
    expect(s.reconciler.handle.asked).toEqual([]);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`])
      expect((await raw(url, { target: '/api/status', headers: { host } })).status).toBe(200);
    // Probes stay open whatever the name, as monitoring expects.
    expect((await raw(url, { target: '/metrics', headers: { host: 'scraper.internal' } })).status).toBe(200);
    expect((await raw(url, { target: '/healthz', headers: { host: 'scraper.internal' } })).status).toBe(200);
  });

  test('without a token configured no action is offered: 403 saying how to configure one', async () => {
    const bare = await startSurfaces({});
    try {
      for (const [url, target] of [
        [bare.reconciler.url, '/api/approve/fleet'],
        [bare.reconciler.url, '/api/override'],
        [bare.reconciler.url, '/api/heal'],
        [bare.reconciler.url, '/dashboard/api/actions/approve'],
        [bare.dashboard.url, '/api/actions/abort'],
      ] as const) {
        const answer = await raw(url, { method: 'POST', target, headers: withToken(), body: '{"stack":"fleet"}' });
        expect(answer.status).toBe(403);
        expect(answer.body).toContain('FLEETFORM_DASHBOARD_TOKEN');
      }
      expect(bare.reconciler.handle.asked).toEqual([]);
      expect(bare.reconciler.source.asked).toEqual([]);
      expect(bare.dashboard.source.asked).toEqual([]);
    } finally {
      await bare.close();
    }
  });

  test('malformed bodies and encodings answer 400, a body too large 413, never 500', async () => {
    const url = s.reconciler.url;
    const post = (target: string, body: Uint8Array | string) => raw(url, { method: 'POST', target, headers: withToken(), body });
    expect((await post('/api/override', '{"windows":')).status).toBe(400);
    expect((await post('/api/override', '[1]')).status).toBe(400);
    expect((await post('/api/override', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]))).status).toBe(400);
    expect((await post('/api/override', '{"windows":"open","for":"\\ud800"}')).status).toBe(400);
    expect((await post('/api/approve/%E0', '{}')).status).toBe(400);
    expect((await post('/api/override', `{"pad":"${'x'.repeat(70_000)}"}`)).status).toBe(413);
    expect((await post('/api/override', '{"windows":"open","for":5}')).status).toBe(400);
    expect(s.reconciler.handle.asked).toEqual([]);
  });

  test('an override lasts at most 7 days: 99999999h is refused with the bound', async () => {
    const url = s.reconciler.url;
    const forever = await raw(url, {
      method: 'POST',
      target: '/api/override',
      headers: withToken(),
      body: '{"windows":"open","for":"99999999h"}',
    });
    expect(forever.status).toBe(400);
    expect(JSON.parse(forever.body).error).toMatch(/at most 168h \(7 days\)/);
    expect(
      (await raw(url, { method: 'POST', target: '/api/override', headers: withToken(), body: '{"windows":"open","for":"169h"}' })).status,
    ).toBe(400);
    expect(
      (await raw(url, { method: 'POST', target: '/api/override', headers: withToken(), body: '{"windows":"open","for":"168h"}' })).status,
    ).toBe(200);
    expect(s.reconciler.handle.asked).toEqual(['override open until']);
  });
});

describe('the dashboard, inside the reconciler and on its own', () => {
  /** Each dashboard: its address and the key of the machine its source holds. */
  const dashboards = (): Array<[string, string]> => [
    [`${s.reconciler.url}/dashboard`, 'fleet%2Fm-00001'],
    [s.dashboard.url, 'fleet%2Fm-00002'],
  ];

  test('actions need the token, JSON and no foreign Origin', async () => {
    for (const [base] of dashboards()) {
      const target = `${new URL(base).pathname.replace(/\/$/, '')}/api/actions/approve`;
      const url = new URL(base).origin;
      const body = '{"stack":"fleet"}';
      expect((await raw(url, { method: 'POST', target, headers: { 'content-type': 'application/json' }, body })).status).toBe(401);
      expect((await raw(url, { method: 'POST', target, headers: withToken({ origin: 'http://127.0.0.1:1' }), body })).status).toBe(403);
      expect((await raw(url, { method: 'POST', target, headers: withToken({ 'content-type': 'text/plain' }), body })).status).toBe(415);
      expect((await raw(url, { method: 'POST', target, headers: withToken({ host: 'rebound.example' }), body })).status).toBe(403);
    }
    expect(s.reconciler.source.asked).toEqual([]);
    expect(s.dashboard.source.asked).toEqual([]);
    for (const [base] of dashboards()) {
      const target = `${new URL(base).pathname.replace(/\/$/, '')}/api/actions/approve`;
      const url = new URL(base).origin;
      const answer = await raw(url, { method: 'POST', target, headers: withToken({ origin: url }), body: '{"stack":"fleet"}' });
      expect(answer.status).toBe(200);
    }
    expect(s.reconciler.source.asked).toEqual(['approve fleet']);
    expect(s.dashboard.source.asked).toEqual(['approve fleet']);
  });

  test('a bad percent-encoding or malformed JSON answers 400', async () => {
    for (const [base, machine] of dashboards()) {
      const prefix = new URL(base).pathname.replace(/\/$/, '');
      const url = new URL(base).origin;
      expect((await raw(url, { target: `${prefix}/api/machines/%E0` })).status).toBe(400);
      expect((await raw(url, { target: `${prefix}/api/machines/${machine}` })).status).toBe(200);
      expect(
        (await raw(url, { method: 'POST', target: `${prefix}/api/actions/approve`, headers: withToken(), body: '{"stack":' })).status,
      ).toBe(400);
      expect((await raw(url, { method: 'PUT', target: `${prefix}/api/actions/approve`, headers: withToken(), body: '{}' })).status).toBe(
        405,
      );
    }
  });
});

test('every GET route answers HEAD, and every answer carries nosniff', async () => {
  const r = s.reconciler.url;
  const d = s.dashboard.url;
  const gets: Array<[string, string]> = [
    [r, '/healthz'],
    [r, '/metrics'],
    [r, '/api/status'],
    [r, '/api/events'],
    [r, '/dashboard/'],
    [r, '/dashboard/api/snapshot'],
    [r, '/dashboard/api/events'],
    [r, '/dashboard/api/machines/fleet%2Fm-00001'],
    [d, '/'],
    [d, '/api/snapshot'],
    [d, '/api/events'],
  ];
  for (const [url, target] of gets) {
    const head = await raw(url, { method: 'HEAD', target });
    expect([target, head.status, head.body]).toEqual([target, 200, '']);
    expect([target, head.headers['x-content-type-options']]).toEqual([target, 'nosniff']);
  }
  const others: Array<[string, string, string]> = [
    [r, 'GET', '/nothing'],
    [r, 'DELETE', '/api/status'],
    [r, 'POST', '/api/heal'],
    [d, 'GET', '/nothing'],
    [d, 'POST', '/api/actions/heal'],
  ];
  for (const [url, method, target] of others) {
    const answer = await raw(url, { method, target });
    expect([target, answer.headers['x-content-type-options']]).toEqual([target, 'nosniff']);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
  }
  const page = await raw(r, { target: '/dashboard/' });
  expect(page.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
  expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
});

test('--readers-need-token: reads need the token, probes and the page files do not', async () => {
  const guarded = await startSurfaces({ token: TOKEN, readersNeedToken: true });
  try {
    const r = guarded.reconciler.url;
    for (const target of ['/api/status', '/dashboard/api/snapshot', '/dashboard/api/events']) {
      expect((await raw(r, { target })).status).toBe(401);
      expect((await raw(r, { target, headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    }
    expect((await raw(guarded.dashboard.url, { target: '/api/snapshot' })).status).toBe(401);
    expect((await raw(r, { target: '/metrics' })).status).toBe(200);
    expect((await raw(r, { target: '/dashboard/' })).status).toBe(200);
  } finally {
    await guarded.close();
  }
});

test('--allow-host: a reverse proxy’s name is served, in Host and as the Origin of an action', async () => {
  const proxied = await startSurfaces({ token: TOKEN, allowHosts: ['fleet.example.com'] });
  try {
    const r = proxied.reconciler.url;
    expect((await raw(r, { target: '/api/status', headers: { host: 'fleet.example.com' } })).status).toBe(200);
    const headers = withToken({ host: 'fleet.example.com', origin: 'https://fleet.example.com' });
    expect((await raw(r, { method: 'POST', target: '/api/heal', headers, body: '{}' })).status).toBe(202);
    // The proxy's name on another port is another origin.
    const other = withToken({ host: 'fleet.example.com', origin: 'https://fleet.example.com:8443' });
    expect((await raw(r, { method: 'POST', target: '/api/heal', headers: other, body: '{}' })).status).toBe(403);
    expect(proxied.reconciler.handle.asked).toEqual(['heal']);
  } finally {
    await proxied.close();
  }
});
