/**
 * `dashboard` of the bench: the fleet page with N machines (default 10,000) in Debian's
 * Chromium, served by the dashboard's own server from a source holding them. Measures the
 * time from navigation to the machine rows drawn, then a change of a tenth of the machines
 * pushed to the open page (until it shows), the longest main-thread task meanwhile, and a
 * jump to the last row, with the machine's load average (other work on it slows all of these).
 * Prints one JSON line.
 */
import * as os from 'node:os';
import { startDashboardServer } from '../src/dashboard/server';
import type { DashboardSource, SourceChange } from '../src/dashboard/source';
import type { DashboardSnapshot, FleetMachine } from '../src/dashboard/view';
import { launchChromium } from '../scripts/chromium';

const size = Number(process.argv[2] ?? '10000');

function machine(i: number, health: FleetMachine['health'] = 'healthy'): FleetMachine {
  const name = `m-${String(i).padStart(5, '0')}`;
  return {
    key: `fleet/${name}`,
    stack: 'fleet',
    machine: name,
    partId: `part-${i}`,
    location: `site-${i % 20}`,
    online: 'online',
    secondsSinceOnline: 0,
    health,
    runningRevision: '2026-01-01T00:00:00.000Z',
    latestRevision: '2026-01-01T00:00:00.000Z',
    modules: [
      {
        name: 'acme_sensors',
        moduleId: 'acme:sensors',
        policy: '~1.2',
        running: '1.2.5',
        latest: '1.3.0',
        admitsLatest: false,
        state: 'ready',
      },
    ],
    resources: { ready: 2, total: 2 },
    problems: [],
  };
}

function snapshot(machines: FleetMachine[]): DashboardSnapshot {
  return {
    generatedAt: new Date().toISOString(),
    source: 'bench',
    machines,
    rollouts: [],
    drift: [],
    cycles: [],
    events: [],
    capabilities: { abort: false, resume: false, approve: false, heal: false },
  };
}

async function main(): Promise<void> {
  const listeners = new Set<(c: SourceChange) => void>();
  let current = snapshot(Array.from({ length: size }, (_, i) => machine(i)));
  const source: DashboardSource = {
    snapshot: () => Promise.resolve(current),
    subscribe: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    machine: () => Promise.resolve(undefined),
  };
  const server = await startDashboardServer(source, { host: '127.0.0.1', port: 0 });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await page.evaluateOnNewDocument(`
      window.__longest = 0;
      new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration); }).observe({ type: 'longtask', buffered: true });
    `);
    await page.goto(server.url);
    await page.waitForFunction(`performance.getEntriesByName('fleet-rows-drawn').length > 0`, { timeout: 60_000, polling: 10 });
    const firstRenderMs = Number(await page.evaluate(`performance.getEntriesByName('fleet-rows-drawn')[0].startTime`));
    const drawnRows = Number(await page.evaluate(`document.querySelectorAll('.rows .row').length`));
    await page.evaluate('window.__longest = 0');

    const changed = Math.floor(size / 10);
    const started = performance.now();
    current = snapshot(current.machines.map((m, i) => (i % 10 === 0 ? machine(i, 'unhealthy') : m)));
    for (const l of listeners) l({ kind: 'snapshot', snapshot: current });
    await page.waitForFunction(`(document.querySelector('.counts')?.textContent || '').includes('${changed} unhealthy')`, {
      timeout: 60_000,
      polling: 'raf',
    });
    const updateMs = performance.now() - started;
    const longestTaskMs = Number(await page.evaluate('window.__longest'));

    const scrollStarted = performance.now();
    await page.evaluate(`document.querySelector('.rows').scrollTop = 1e9`);
    await page.waitForSelector(`[data-machine="m-${String(size - 1).padStart(5, '0')}"]`, { timeout: 10_000 });
    const scrollMs = performance.now() - scrollStarted;

    const r = (n: number): number => Math.round(n * 10) / 10;
    process.stdout.write(
      `${JSON.stringify({ machines: size, first_render_ms: r(firstRenderMs), rows_drawn: drawnRows, update_machines: changed, update_ms: r(updateMs), update_longest_task_ms: r(longestTaskMs), scroll_to_last_ms: r(scrollMs), load_average: r(os.loadavg()[0] ?? 0), cpu_cores: os.cpus().length })}\n`,
    );
  } finally {
    await browser.close();
    await server.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
