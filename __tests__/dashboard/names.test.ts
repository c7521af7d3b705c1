import { editorName } from '../../src/dashboard/editor-name';
import { decodeFleet, encodeFleet } from '../../src/dashboard/fleet-table';
import { fleetMachines, unnamedLocations } from '../../src/dashboard/fleet-view';
import { locationNames } from '../../src/dashboard/location-names';
import { resourcesOf } from '../../src/dashboard/machine-detail';
import type { JsonObject } from '../../src/engine/json';
import type { MachineRun } from '../../src/engine/kinds/machine-runs';
import type { MachineHealth } from '../../src/engine/kinds/machine-health';
import type { State, StateEntry } from '../../src/engine/state/schema';
import { machineRow } from './fake-source';

const entry = (type: string, ids: Record<string, string>, attributes: JsonObject): StateEntry => ({
  type,
  ids,
  outputs: {},
  attributes,
  dependencies: [],
  private: {},
  sensitive_paths: [],
  status: 'ok',
});

const state: State = {
  format: 1,
  stack: 'fleet',
  serial: 1,
  lineage: 'l',
  resources: {
    'fleetform_location.north': entry('fleetform_location', { id: 'loc-north' }, { name: 'north-hall' }),
    'fleetform_machine.a': entry('fleetform_machine', { id: 'm-a', part_id: 'p-a' }, { name: 'a', location_id: 'loc-north' }),
    'fleetform_machine.b': entry('fleetform_machine', { id: 'm-b', part_id: 'p-b' }, { name: 'b', location_id: 'loc-elsewhere' }),
    'fleetform_machine.c': entry('fleetform_machine', { id: 'm-c', part_id: 'p-c' }, { name: 'c', location_id: 'loc-unknown' }),
  },
} as unknown as State;

const health = (machine: string, partId: string): MachineHealth => ({
  stack: 'fleet',
  machine,
  partId,
  online: 'online',
  secondsSinceOnline: 0,
  lastAccess: undefined,
  latestRevision: 'r1',
  runningRevision: 'r1',
  health: 'healthy',
  modules: [],
  resources: [],
});

test('a location is named by its stack, else by the service, else shown by its id; the id is kept beside the name', () => {
  expect(unnamedLocations([state])).toEqual(['loc-elsewhere', 'loc-unknown']);
  const rows = fleetMachines(
    [health('a', 'p-a'), health('b', 'p-b'), health('c', 'p-c')],
    [],
    [state],
    new Map([['loc-elsewhere', 'south-yard']]),
  );
  expect(rows.map((r) => [r.machine, r.location, r.locationId])).toEqual([
    ['a', 'north-hall', 'loc-north'],
    ['b', 'south-yard', 'loc-elsewhere'],
    ['c', 'loc-unknown', 'loc-unknown'],
  ]);
});

test('location names are read once, again when old, and a failed read is tried again', async () => {
  let clock = 0;
  const asked: string[] = [];
  const names = locationNames(
    (id) => {
      asked.push(id);
      return id === 'bad' ? Promise.reject(new Error('unavailable')) : Promise.resolve(`name of ${id}`);
    },
    1000,
    () => clock,
  );
  expect([...(await names(['x', 'bad']))]).toEqual([['x', 'name of x']]);
  await names(['x', 'bad']);
  expect(asked).toEqual(['x', 'bad', 'bad']);
  clock = 2000;
  await names(['x']);
  expect(asked).toEqual(['x', 'bad', 'bad', 'x']);
});

test('a history editor is named as the service names it: a user by e-mail, an API key by name when known, else by id', () => {
  const keys = new Map([['key-1', 'ci deploy']]);
  expect(editorName({ type: 1, value: 'ops@example.com', isDeactivated: false }, keys)).toEqual({ editedBy: 'ops@example.com' });
  expect(editorName({ type: 2, value: 'key-1', isDeactivated: false }, keys)).toEqual({ editedBy: 'API key ci deploy', editorId: 'key-1' });
  expect(editorName({ type: 2, value: 'key-2', isDeactivated: true }, keys)).toEqual({ editedBy: 'API key key-2 (deactivated)' });
  expect(editorName(undefined)).toEqual({ editedBy: 'unknown' });
});

test('a module from a fragment keeps its fragment through the fleet table', () => {
  const machine = machineRow(1, {
    locationId: 'loc-1',
    modules: [
      { name: 'sensors', moduleId: 'acme:sensors', policy: '~1.2', running: '1.2.3', admitsLatest: false },
      {
        name: 'vision',
        moduleId: 'acme:vision',
        policy: '~1.0',
        running: '1.0.1',
        admitsLatest: true,
        fragment: { id: 'f-1', name: 'eyes' },
      },
    ],
  });
  const [row] = decodeFleet(JSON.parse(JSON.stringify(encodeFleet([machine]))) as ReturnType<typeof encodeFleet>);
  expect(row?.locationId).toBe('loc-1');
  expect(row?.modules).toEqual([
    { name: 'sensors', moduleId: 'acme:sensors', running: '1.2.3' },
    { name: 'vision', moduleId: 'acme:vision', running: '1.0.1', fragment: { id: 'f-1', name: 'eyes' } },
  ]);
});

test('resources are marked with the fragment they come from; those the machine runs but does not report are listed', () => {
  const run: MachineRun = {
    stack: 'fleet',
    address: 'fleetform_machine.a',
    entries: [
      { section: 'components', name: 'board-1', entry: { name: 'board-1', api: 'rdk:component:board' } },
      {
        section: 'services',
        name: 'finder',
        entry: { name: 'finder', api: 'rdk:service:vision' },
        fragment: { id: 'f-1', name: 'eyes' },
      },
      { section: 'modules', name: 'vision', entry: { name: 'vision' }, fragment: { id: 'f-1', name: 'eyes' } },
    ],
  };
  expect(resourcesOf([{ name: 'board-1', api: 'rdk:component:board', state: 'ready', error: '' }], run)).toEqual([
    { name: 'board-1', api: 'rdk:component:board', state: 'ready', error: '' },
    { name: 'finder', api: 'rdk:service:vision', state: 'not reported', error: '', fragment: { id: 'f-1', name: 'eyes' } },
  ]);
});
