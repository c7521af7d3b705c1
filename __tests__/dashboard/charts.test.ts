import { compareVersions, healthLines, healthPoint, moduleVersionBars, stackedBars, waveBars } from '../../src/dashboard/charts';
import { keepsHealthPoint } from '../../src/dashboard/hub';
import type { FleetRowModule, RolloutView } from '../../src/dashboard/view';

const mod = (moduleId: string, running?: string): FleetRowModule => ({
  name: moduleId.split(':')[1] ?? moduleId,
  moduleId,
  ...(running ? { running } : {}),
});

test('module versions: for each module, machines per version, oldest version first, unknown last', () => {
  const rows = [
    { modules: [mod('acme:sensors', '1.2.10'), mod('acme:vision', '1.0.1')] },
    { modules: [mod('acme:sensors', '1.2.9')] },
    { modules: [mod('acme:sensors', '1.2.10')] },
    { modules: [mod('acme:sensors')] },
  ];
  expect(moduleVersionBars(rows)).toEqual([
    {
      label: 'acme:sensors',
      parts: [
        { key: '1.2.9', count: 1 },
        { key: '1.2.10', count: 2 },
        { key: 'unknown', count: 1 },
      ],
    },
    { label: 'acme:vision', parts: [{ key: '1.0.1', count: 1 }] },
  ]);
  expect(['1.10.0', '1.2.0', '2.0.0-rc.1', '1.2.0-rc.1'].sort(compareVersions)).toEqual(['1.2.0-rc.1', '1.2.0', '1.10.0', '2.0.0-rc.1']);
});

test('stacked bars share one scale: the longest spans the width, segments follow each other, empty parts are not drawn', () => {
  const layout = stackedBars(
    [
      {
        label: 'a',
        parts: [
          { key: 'x', count: 3 },
          { key: 'y', count: 1 },
        ],
      },
      {
        label: 'b',
        parts: [
          { key: 'x', count: 0 },
          { key: 'y', count: 2 },
        ],
      },
    ],
    { x: 100, width: 400, barHeight: 20, gap: 10 },
  );
  expect(layout.height).toBe(50);
  expect(layout.bars).toEqual([
    {
      label: 'a',
      total: 4,
      y: 0,
      segments: [
        { key: 'x', count: 3, x: 100, width: 300 },
        { key: 'y', count: 1, x: 400, width: 100 },
      ],
    },
    { label: 'b', total: 2, y: 30, segments: [{ key: 'y', count: 2, x: 100, width: 200 }] },
  ]);
  expect(stackedBars([], { x: 0, width: 10, barHeight: 5, gap: 1 })).toEqual({ height: 0, bars: [] });
});

test('health counts: an offline machine is offline whatever its health; lines run left to right by time, counts upwards', () => {
  const p1 = healthPoint('2026-01-01T00:00:00.000Z', [
    { health: 'healthy', online: 'online' },
    { health: 'behind', online: 'online' },
    { health: 'healthy', online: 'offline' },
    { health: 'unreachable', online: 'online' },
  ]);
  expect(p1).toEqual({ at: '2026-01-01T00:00:00.000Z', healthy: 1, changing: 1, unhealthy: 0, offline: 2 });
  const p2 = { at: '2026-01-01T00:01:00.000Z', healthy: 4, changing: 0, unhealthy: 0, offline: 0 };
  const lines = healthLines([p1, p2], { width: 100, height: 40 });
  expect(lines.max).toBe(4);
  expect(lines.series.find((s) => s.key === 'healthy')).toEqual({ key: 'healthy', points: '0,30 100,0', last: 4 });
  expect(lines.series.find((s) => s.key === 'offline')?.points).toBe('0,20 100,40');
  expect(healthLines([], { width: 100, height: 40 }).max).toBe(0);
  expect(healthLines([p2], { width: 100, height: 40 }).series[0]).toEqual({ key: 'healthy', points: '0,0 100,0', last: 4 });
});

test('a health point is kept when the counts change, or a minute after the last one', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  const p = (s: number, healthy: number) => ({ at: at(s), healthy, changing: 0, unhealthy: 0, offline: 0 });
  expect(keepsHealthPoint(undefined, p(0, 1))).toBe(true);
  expect(keepsHealthPoint(p(0, 1), p(5, 1))).toBe(false);
  expect(keepsHealthPoint(p(0, 1), p(5, 2))).toBe(true);
  expect(keepsHealthPoint(p(0, 1), p(60, 1))).toBe(true);
});

test("a rollout's progress: each wave's machines by state, a failed one counted as failed once rolled back", () => {
  const m = (state: RolloutView['waves'][number]['machines'][number]['state'], failed = false) => ({
    name: 'm',
    address: 'a',
    state,
    failed,
  });
  const bars = waveBars({
    waves: [
      { number: 1, rule: 'canary', phase: 'stopped', machines: [m('rolled back', true)] },
      { number: 2, rule: 'half', phase: 'not reached', machines: [m('not reached'), m('gone')] },
    ],
  });
  const counted = bars.map((b) => [b.label, b.parts.filter((p) => p.count > 0).map((p) => `${p.key} ${p.count}`)]);
  expect(counted).toEqual([
    ['wave 1', ['failed 1']],
    ['wave 2', ['not reached 1', 'gone 1']],
  ]);
});
