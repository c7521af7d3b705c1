import { statusText } from '../../src/cli/commands/status-run';
import type { MachineHealth } from '../../src/engine/kinds/machine-health';
import type { ModuleCard } from '../../src/engine/kinds/module-cards';

const rover: MachineHealth = {
  stack: 'fleet',
  machine: 'rover-1',
  partId: 'p-1',
  online: 'online',
  secondsSinceOnline: 0,
  lastAccess: undefined,
  latestRevision: 'r1',
  runningRevision: 'r1',
  health: 'healthy',
  modules: [{ name: 'acme_sensors', state: 'ready', error: '', consecutiveFailures: 0 }],
  resources: [],
};

const card = (over: Partial<ModuleCard> = {}): ModuleCard => ({
  stack: 'fleet',
  machine: 'rover-1',
  module: 'acme_sensors',
  moduleId: 'acme:sensors',
  policy: '~1.2',
  running: '1.2.1',
  latest: '1.3.0',
  admitsLatest: false,
  ...over,
});

test('a module a fragment brings is listed, named with its fragment', () => {
  const text = statusText([rover], [card({ fragment: { id: 'f-1', name: 'sensor-rig' } })]);
  const row = text.split('\n').find((l) => l.startsWith('fleet  rover-1  acme_sensors'));
  expect(row).toMatch(/^fleet +rover-1 +acme_sensors \(fragment sensor-rig\) +acme:sensors +~1\.2 +1\.2\.1 +1\.3\.0 +no$/);
  expect(text).not.toContain('No machine');
});

test('a fragment without a name is named by its id; a machine\u2019s own module has no mark', () => {
  expect(statusText([rover], [card({ fragment: { id: 'f-1', name: undefined } })])).toContain('acme_sensors (fragment f-1)');
  expect(statusText([rover], [card()])).not.toContain('(fragment');
});

test('an empty module table says why, and names apply only when nothing is managed', () => {
  expect(statusText([rover], [])).toContain('No registry module runs on these machines.\n');
  expect(statusText([rover], [])).not.toContain('fleetform apply');
  expect(statusText([], [])).toBe('No machine is managed yet (run `fleetform apply`).\n');
});
