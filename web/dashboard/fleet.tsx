/**
 * The fleet page: every machine with its location, health, config revision and module
 * versions against the latest, filtered by text, health and location. Only the rows in
 * view are drawn (fixed-height rows in a scrolled box), so thousands of machines cost no
 * more than the few dozen on screen.
 */
import { useMemo, useState, useEffect, useRef } from 'preact/hooks';
import type { FleetRow, HealthPoint } from '../../src/dashboard/view';
import { HealthChart, VersionChart } from './chart-views';
import { HealthBadge, shortRevision } from './parts';

const ROW_HEIGHT = 44;
const OVERSCAN = 8;

function moduleText(m: FleetRow): string {
  return (
    m.modules
      .map(
        (x) =>
          `${x.name} ${x.running ?? '?'}${x.latest && x.latest !== x.running ? ` (latest ${x.latest})` : ''}${x.fragment ? ` from ${x.fragment.name ?? x.fragment.id}` : ''}`,
      )
      .join(', ') || '-'
  );
}

function behindLatest(m: FleetRow): boolean {
  return m.modules.some((x) => x.latest !== undefined && x.running !== undefined && x.latest !== x.running);
}

interface Filters {
  text: string;
  health: string;
  location: string;
}

function matches(m: FleetRow, f: Filters): boolean {
  if (f.health !== '' && m.health !== f.health) return false;
  if (f.location !== '' && m.location !== f.location) return false;
  if (f.text === '') return true;
  const t = f.text.toLowerCase();
  return (
    m.machine.toLowerCase().includes(t) ||
    m.stack.toLowerCase().includes(t) ||
    m.modules.some((x) => x.name.toLowerCase().includes(t) || x.moduleId.toLowerCase().includes(t))
  );
}

function Row({ m, index, top }: { m: FleetRow; index: number; top: number }) {
  return (
    <div class={`row health-${m.health}`} role="row" aria-rowindex={index + 2} style={{ top: `${top}px` }} data-machine={m.machine}>
      <span role="cell" class="c-name">
        <a href={`#/machine/${encodeURIComponent(m.key)}`}>{m.machine}</a>
        <span class="sub">{m.stack}</span>
      </span>
      <span role="cell" class="c-loc" title={m.locationId ? `location id ${m.locationId}` : undefined}>
        {m.location || '-'}
      </span>
      <span role="cell" class="c-health">
        <HealthBadge health={m.health} />
        <span class="sub">{m.online === 'offline' ? `offline ${m.secondsSinceOnline}s` : m.online}</span>
      </span>
      <span role="cell" class="c-rev" title={m.runningRevision ?? ''}>
        {m.runningRevision === undefined
          ? '-'
          : m.runningRevision === m.latestRevision
            ? `latest ${shortRevision(m.latestRevision)}`
            : `runs ${shortRevision(m.runningRevision)}`}
      </span>
      <span role="cell" class={`c-mod${behindLatest(m) ? ' behind' : ''}`} data-modules title={moduleText(m)}>
        {moduleText(m)}
      </span>
      <span role="cell" class="c-res">
        {m.resources.total === 0 ? '-' : `${m.resources.ready}/${m.resources.total} ready`}
      </span>
    </div>
  );
}

export function FleetPage({ machines, health }: { machines: readonly FleetRow[]; health: readonly HealthPoint[] }) {
  const [filters, setFilters] = useState<Filters>({ text: '', health: '', location: '' });
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  const box = useRef<HTMLDivElement>(null);
  const shown = useMemo(() => machines.filter((m) => matches(m, filters)), [machines, filters]);
  const locations = useMemo(() => [...new Set(machines.map((m) => m.location).filter((l) => l !== ''))].sort(), [machines]);
  const counts = useMemo(() => {
    const c: Record<string, number> = {};
    for (const m of machines) c[m.health] = (c[m.health] ?? 0) + 1;
    return c;
  }, [machines]);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const resize = (): void => setHeight(Math.max(el.clientHeight, window.innerHeight));
    resize();
    window.addEventListener('resize', resize);
    return () => window.removeEventListener('resize', resize);
  }, []);
  useEffect(() => {
    if (shown.length > 0) performance.mark('fleet-rows-drawn');
  }, [shown.length > 0]);

  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(shown.length, Math.ceil((scrollTop + height) / ROW_HEIGHT) + OVERSCAN);
  const set = (key: keyof Filters) => (e: Event) => setFilters({ ...filters, [key]: (e.target as HTMLInputElement).value });

  return (
    <section aria-labelledby="fleet-title">
      <h1 id="fleet-title">Fleet</h1>
      <p class="counts" aria-live="polite">
        {machines.length} machine(s):{' '}
        {Object.entries(counts)
          .map(([h, n]) => `${n} ${h}`)
          .join(', ') || 'none yet'}
      </p>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search
          <input type="search" value={filters.text} onInput={set('text')} placeholder="machine, stack or module" />
        </label>
        <label>
          Health
          <select value={filters.health} onChange={set('health')}>
            <option value="">any</option>
            {['healthy', 'starting', 'held', 'behind', 'unhealthy', 'unreachable'].map((h) => (
              <option value={h}>{h}</option>
            ))}
          </select>
        </label>
        <label>
          Location
          <select value={filters.location} onChange={set('location')}>
            <option value="">any</option>
            {locations.map((l) => (
              <option value={l}>{l}</option>
            ))}
          </select>
        </label>
      </form>
      <div class="grid" role="table" aria-label="Machines" aria-rowcount={shown.length + 1}>
        <div class="row head" role="row" aria-rowindex={1}>
          <span role="columnheader" class="c-name">
            Machine
          </span>
          <span role="columnheader" class="c-loc">
            Location
          </span>
          <span role="columnheader" class="c-health">
            Health
          </span>
          <span role="columnheader" class="c-rev">
            Config
          </span>
          <span role="columnheader" class="c-mod">
            Modules (running vs latest)
          </span>
          <span role="columnheader" class="c-res">
            Resources
          </span>
        </div>
        <div
          class="rows"
          ref={box}
          role="rowgroup"
          tabIndex={0}
          aria-label="Machines, scroll for more"
          onScroll={(e) => setScrollTop((e.target as HTMLDivElement).scrollTop)}
        >
          <div class="spacer" style={{ height: `${shown.length * ROW_HEIGHT}px` }}>
            {shown.slice(first, last).map((m, i) => (
              <Row key={m.key} m={m} index={first + i} top={(first + i) * ROW_HEIGHT} />
            ))}
          </div>
        </div>
      </div>
      {shown.length === 0 && (
        <p>{machines.length === 0 ? 'No managed machine yet (run `fleetform apply`).' : 'No machine matches the filters.'}</p>
      )}
      <div class="charts">
        <VersionChart machines={shown} />
        <HealthChart points={health} />
      </div>
    </section>
  );
}
