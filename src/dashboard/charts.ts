/**
 * The dashboard's charts as geometry: which bars, segments and lines to draw where, from the
 * fleet, its recorded health and a rollout. Pure, and importing only types, so the page
 * draws them as inline SVG with the same code the tests check.
 */
import type { FleetRow, HealthPoint, MachineHealthName, RolloutView } from './view';

/** One bar: a label and its parts, each counted (a part of count 0 is drawn as nothing). */
export interface Bar {
  readonly label: string;
  readonly parts: ReadonlyArray<{ readonly key: string; readonly count: number }>;
}

export interface BarSegment {
  readonly key: string;
  readonly count: number;
  readonly x: number;
  readonly width: number;
}

export interface PlacedBar {
  readonly label: string;
  readonly total: number;
  readonly y: number;
  readonly segments: readonly BarSegment[];
}

export interface BarLayout {
  /** Where bars start (after the labels) and the width they share. */
  readonly x: number;
  readonly width: number;
  readonly barHeight: number;
  readonly gap: number;
}

/** Bars stacked left to right, one under the other, all on one scale: the longest bar spans `width`. */
export function stackedBars(bars: readonly Bar[], layout: BarLayout): { height: number; bars: PlacedBar[] } {
  const totals = bars.map((b) => b.parts.reduce((n, p) => n + Math.max(0, p.count), 0));
  const max = Math.max(1, ...totals);
  const placed = bars.map((b, i): PlacedBar => {
    let x = layout.x;
    const segments = b.parts
      .filter((p) => p.count > 0)
      .map((p): BarSegment => {
        const width = (p.count / max) * layout.width;
        const s = { key: p.key, count: p.count, x, width };
        x += width;
        return s;
      });
    return { label: b.label, total: totals[i] ?? 0, y: i * (layout.barHeight + layout.gap), segments };
  });
  return { height: Math.max(0, bars.length * (layout.barHeight + layout.gap) - layout.gap), bars: placed };
}

/** Compares dot-separated parts: numbers as numbers, before text. */
function compareParts(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const nx = /^\d+$/.test(x) ? Number(x) : NaN;
    const ny = /^\d+$/.test(y) ? Number(y) : NaN;
    if (!Number.isNaN(nx) && !Number.isNaN(ny)) return nx - ny;
    if (!Number.isNaN(nx)) return -1;
    if (!Number.isNaN(ny)) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/** Orders versions as releases are ordered (1.2.10 after 1.2.9, 1.2.0-rc.1 before 1.2.0); build metadata is ignored. */
export function compareVersions(a: string, b: string): number {
  const [coreA = '', preA] = (a.split('+')[0] ?? a).split(/-(.*)/s);
  const [coreB = '', preB] = (b.split('+')[0] ?? b).split(/-(.*)/s);
  const core = compareParts(coreA.split('.'), coreB.split('.'));
  if (core !== 0) return core;
  if (preA === undefined || preB === undefined) return preA === preB ? 0 : preA === undefined ? 1 : -1;
  return compareParts(preA.split('.'), preB.split('.'));
}

/** The version a module runs when it is not known. */
export const UNKNOWN_VERSION = 'unknown';

/** For each module (by module id), how many machines run which version, versions oldest first; modules by id. */
export function moduleVersionBars(rows: ReadonlyArray<Pick<FleetRow, 'modules'>>): Bar[] {
  const counts = new Map<string, Map<string, number>>();
  for (const row of rows) {
    for (const m of row.modules) {
      const versions = counts.get(m.moduleId) ?? new Map<string, number>();
      counts.set(m.moduleId, versions);
      const v = m.running ?? UNKNOWN_VERSION;
      versions.set(v, (versions.get(v) ?? 0) + 1);
    }
  }
  return [...counts.keys()].sort().map((moduleId) => {
    const versions = counts.get(moduleId) ?? new Map<string, number>();
    const order = [...versions.keys()].sort((a, b) => (a === UNKNOWN_VERSION ? 1 : b === UNKNOWN_VERSION ? -1 : compareVersions(a, b)));
    return { label: moduleId, parts: order.map((key) => ({ key, count: versions.get(key) ?? 0 })) };
  });
}

/** The states health is counted in, in the order they are drawn. */
export const HEALTH_SERIES = ['healthy', 'changing', 'unhealthy', 'offline'] as const;
export type HealthSeries = (typeof HEALTH_SERIES)[number];

const SERIES_OF: Readonly<Record<MachineHealthName, HealthSeries>> = {
  healthy: 'healthy',
  starting: 'changing',
  held: 'changing',
  behind: 'changing',
  unhealthy: 'unhealthy',
  unreachable: 'offline',
};

/** The fleet's health counts now: an offline machine counts as offline whatever else it is. */
export function healthPoint(at: string, machines: ReadonlyArray<Pick<FleetRow, 'health' | 'online'>>): HealthPoint {
  const c = { healthy: 0, changing: 0, unhealthy: 0, offline: 0 };
  for (const m of machines) c[m.online === 'offline' ? 'offline' : SERIES_OF[m.health]] += 1;
  return { at, ...c };
}

export interface LineLayout {
  readonly width: number;
  readonly height: number;
}

export interface HealthLines {
  /** The largest count drawn (the top of the chart). */
  readonly max: number;
  /** Each series as SVG polyline points (`x,y x,y`). */
  readonly series: ReadonlyArray<{ readonly key: HealthSeries; readonly points: string; readonly last: number }>;
  readonly from?: string;
  readonly to?: string;
}

const round = (n: number): number => Math.round(n * 10) / 10;

/** Health counts over time as lines: time left to right (by each point's time), counts bottom to top. */
export function healthLines(points: readonly HealthPoint[], layout: LineLayout): HealthLines {
  const first = points[0];
  const last = points[points.length - 1];
  if (!first || !last) return { max: 0, series: HEALTH_SERIES.map((key) => ({ key, points: '', last: 0 })) };
  const t0 = Date.parse(first.at);
  const span = Math.max(1, Date.parse(last.at) - t0);
  const max = Math.max(1, ...points.flatMap((p) => HEALTH_SERIES.map((k) => p[k])));
  const x = (p: HealthPoint): number => round(((Date.parse(p.at) - t0) / span) * layout.width);
  const y = (n: number): number => round(layout.height - (n / max) * layout.height);
  // One reading is drawn as a level line across the chart.
  const line = (key: HealthSeries): string =>
    points.length === 1 ? `0,${y(last[key])} ${layout.width},${y(last[key])}` : points.map((p) => `${x(p)},${y(p[key])}`).join(' ');
  const series = HEALTH_SERIES.map((key) => ({
    key,
    points: line(key),
    last: last[key],
  }));
  return { max, series, from: first.at, to: last.at };
}

/** A rollout's machine states, in the order a wave's bar shows them. */
export const WAVE_STATES = ['healthy', 'written', 'waiting', 'failed', 'rolled back', 'left', 'not reached', 'gone'] as const;

/** A rollout's progress: one bar per wave, its machines counted by state. */
export function waveBars(r: Pick<RolloutView, 'waves'>): Bar[] {
  return r.waves.map((w) => ({
    label: `wave ${w.number}`,
    parts: WAVE_STATES.map((state) => ({
      key: state,
      count: w.machines.filter((m) => (state === 'failed' ? m.failed : m.state === state && !m.failed)).length,
    })),
  }));
}
