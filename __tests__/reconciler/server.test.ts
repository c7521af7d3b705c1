import type { ReconcilerEvent, ReconcilerHandle, ReconcilerStatus } from '../../src/reconciler/events';
import { ReconcilerMetrics } from '../../src/reconciler/metrics';
import { parseListen, ReconcilerServer } from '../../src/reconciler/server';

/** A handle that records what it is asked, and sends events to its subscribers on demand. */
function fakeHandle(): ReconcilerHandle & { asked: string[]; send(e: ReconcilerEvent): void } {
  const listeners = new Set<(e: ReconcilerEvent) => void>();
  const asked: string[] = [];
  const status: ReconcilerStatus = {
    state: 'idle',
    leader: true,
    cycle: 2,
    stacks: [
      {
        stack: 'fleet',
        apply: 'approve',
        drift: 'warn',
        changes: 1,
        drifted: [],
        waiting: { for: 'approval', reason: "the stack's policy is approve", since: '2026-11-27T10:00:00.000Z' },
      },
    ],
  };
  return {
    asked,
    status: () => status,
    subscribe: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    approve: (stack) => {
      asked.push(`approve ${stack}`);
      return stack === 'fleet';
    },
    healNow: () => asked.push('heal'),
    refresh: () => asked.push('refresh'),
    overrideWindows: (mode, until) => asked.push(`override ${mode} ${until === undefined ? 'forever' : 'until'}`),
    send: (e) => listeners.forEach((l) => l(e)),
  };
}

const TOKEN = 'reconciler-server-test-token';
const post = (url: string, body: unknown = {}): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

test('the server answers health, metrics and the API, and serves a mounted handler under its prefix', async () => {
  const handle = fakeHandle();
  const metrics = new ReconcilerMetrics();
  metrics.observe({ type: 'cycle-finished', at: '2026-11-27T10:00:00.000Z', cycle: 1, seconds: 0.5, changes: 1, drifted: 0 });
  const server = new ReconcilerServer(handle, metrics, undefined, { token: TOKEN }).mount('/ui', (req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`dashboard ${req.url}`);
    return true;
  });
  const url = await server.listen('127.0.0.1', 0);
  try {
    expect(await (await fetch(`${url}/healthz`)).text()).toBe('ok\n');
    expect(await (await fetch(`${url}/metrics`)).text()).toMatch(/fleetform_reconcile_cycles_total\{result="ok"\} 1/);
    expect(await (await fetch(`${url}/ui/stacks`)).text()).toBe('dashboard /ui/stacks');
    expect(((await (await fetch(`${url}/api/status`)).json()) as ReconcilerStatus).stacks[0]?.waiting?.for).toBe('approval');
    expect((await post(`${url}/api/approve/fleet`)).status).toBe(200);
    expect((await post(`${url}/api/approve/other`)).status).toBe(409);
    expect((await post(`${url}/api/heal`)).status).toBe(202);
    expect((await fetch(`${url}/api/refresh`, { method: 'POST' })).status).toBe(202);
    expect((await post(`${url}/api/override`, { windows: 'open', for: '1h' })).status).toBe(200);
    expect((await post(`${url}/api/override`, { windows: 'ajar' })).status).toBe(400);
    expect(handle.asked).toEqual(['approve fleet', 'approve other', 'heal', 'refresh', 'override open until']);

    // Events stream as server-sent events.
    const res = await fetch(`${url}/api/events`);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    handle.send({
      type: 'drift-found',
      at: '2026-11-27T10:00:00.000Z',
      cycle: 2,
      stack: 'fleet',
      objects: ['fleetform_machine.a'],
      policy: 'warn',
    });
    const chunk = new TextDecoder().decode((await reader.read()).value);
    expect(chunk).toContain('event: drift-found');
    expect(chunk).toContain('"objects":["fleetform_machine.a"]');
    await reader.cancel();
  } finally {
    await server.close();
  }
});

test('--listen takes HOST:PORT', () => {
  expect(parseListen('127.0.0.1:9464')).toEqual({ host: '127.0.0.1', port: 9464 });
  expect(parseListen('[::1]:80')).toEqual({ host: '::1', port: 80 });
  expect(parseListen(':9464')).toEqual({ host: '0.0.0.0', port: 9464 });
  expect(() => parseListen('localhost')).toThrow(/HOST:PORT/);
});
