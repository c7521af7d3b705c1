import { decodeFleet, encodeFleet, mergeMachines } from '../../src/dashboard/fleet-table';
import type { FleetRow } from '../../src/dashboard/view';
import { machineRow } from './fake-source';

test('a fleet table holds what the fleet page shows, each repeated string and module list once', () => {
  const machines = Array.from({ length: 2000 }, (_, i) => machineRow(i, i === 3 ? { runningRevision: undefined, modules: [] } : {}));
  const table = encodeFleet(machines);
  expect(table.moduleSets).toHaveLength(2);
  expect(table.strings.filter((s) => s === 'fleet')).toHaveLength(1);
  const rows = decodeFleet(JSON.parse(JSON.stringify(table)) as typeof table);
  expect(rows[3]).toMatchObject({ key: 'fleet/m-00003', modules: [], runningRevision: undefined });
  expect(rows[5]).toEqual({
    key: 'fleet/m-00005',
    stack: 'fleet',
    machine: 'm-00005',
    location: 'site-5',
    health: 'healthy',
    online: 'online',
    secondsSinceOnline: 0,
    runningRevision: '2026-01-01T00:00:00.000Z',
    latestRevision: '2026-01-01T00:00:00.000Z',
    modules: [{ name: 'sensors', moduleId: 'acme:sensors', running: '1.2.3', latest: '1.3.0' }],
    resources: { ready: 2, total: 2 },
  });
  // Machines sharing a module list share it decoded too.
  expect(rows[5]?.modules).toBe(rows[6]?.modules);
  // A tenth of the size of the machines as JSON, or less.
  expect(JSON.stringify(table).length).toBeLessThan(JSON.stringify(machines).length / 10);
});

test('changes merge into the rows by key: replaced in place, removed, added in key order', () => {
  const rows: FleetRow[] = decodeFleet(encodeFleet([1, 3, 5].map((i) => machineRow(i))));
  const [two, three] = decodeFleet(encodeFleet([machineRow(2), machineRow(3, { health: 'unhealthy' })]));
  const merged = mergeMachines(
    rows,
    new Map<string, FleetRow | null>([
      ['fleet/m-00005', null],
      ['fleet/m-00002', two ?? null],
      ['fleet/m-00003', three ?? null],
    ]),
  );
  expect(merged.map((r) => `${r.machine} ${r.health}`)).toEqual(['m-00001 healthy', 'm-00002 healthy', 'm-00003 unhealthy']);
  expect(merged[0]).toBe(rows[0]);
});
