/**
 * The charts, drawn as inline SVG from the geometry of src/dashboard/charts.ts: the fleet's
 * module versions, its health over time, a rollout's progress by wave. Each says what it
 * shows in words too (a title, a legend with counts).
 */
import { HEALTH_SERIES, healthLines, moduleVersionBars, stackedBars, waveBars, type Bar } from '../../src/dashboard/charts';
import type { FleetRow, HealthPoint, RolloutView } from '../../src/dashboard/view';
import { when } from './parts';

const WIDTH = 640;
const LABEL = 170;

/** Distinct colours for keys of a chart with no fixed meaning (versions), in order. */
const PALETTE = ['#0b4fb3', '#116329', '#7a4b00', '#8a2be2', '#a40e26', '#00707a', '#5c5c00', '#4a5361'];

const STATE_COLOURS: Readonly<Record<string, string>> = {
  healthy: '#116329',
  changing: '#7a4b00',
  written: '#7a4b00',
  waiting: '#8c96a3',
  unhealthy: '#a40e26',
  failed: '#a40e26',
  'rolled back': '#c2410c',
  offline: '#4a5361',
  left: '#4a5361',
  'not reached': '#c9d0da',
  gone: '#1b1f24',
};

function Bars({ bars, colour, chart, label }: { bars: readonly Bar[]; colour: (key: string) => string; chart: string; label: string }) {
  const layout = stackedBars(bars, { x: LABEL, width: WIDTH - LABEL - 40, barHeight: 18, gap: 10 });
  return (
    <svg
      class="chart"
      data-chart={chart}
      role="img"
      aria-label={label}
      viewBox={`0 0 ${WIDTH} ${layout.height + 4}`}
      width={WIDTH}
      height={layout.height + 4}
    >
      <title>{label}</title>
      {layout.bars.map((b) => (
        <g data-bar={b.label}>
          <text x={LABEL - 8} y={b.y + 13} text-anchor="end" class="chart-label">
            {b.label}
          </text>
          {b.segments.map((s) => (
            <rect x={s.x} y={b.y} width={Math.max(s.width, 1)} height={18} fill={colour(s.key)} data-key={s.key} data-count={s.count}>
              <title>{`${b.label}: ${s.key}, ${s.count}`}</title>
            </rect>
          ))}
          <text
            x={(b.segments[b.segments.length - 1]?.x ?? LABEL) + (b.segments[b.segments.length - 1]?.width ?? 0) + 6}
            y={b.y + 13}
            class="chart-label"
          >
            {b.total}
          </text>
        </g>
      ))}
    </svg>
  );
}

function Legend({ items }: { items: ReadonlyArray<{ key: string; colour: string; text: string }> }) {
  return (
    <ul class="legend">
      {items.map((i) => (
        <li data-legend={i.key}>
          <span class="swatch" style={{ background: i.colour }} aria-hidden="true" /> {i.text}
        </li>
      ))}
    </ul>
  );
}

/** For each module, how many machines run which version. */
export function VersionChart({ machines }: { machines: readonly FleetRow[] }) {
  const bars = moduleVersionBars(machines);
  if (bars.length === 0) return <p>No registry module runs on the fleet.</p>;
  const versions = [...new Set(bars.flatMap((b) => b.parts.map((p) => p.key)))];
  const colour = (v: string): string => PALETTE[versions.indexOf(v) % PALETTE.length] ?? '#4a5361';
  return (
    <figure class="figure" aria-labelledby="versions-caption">
      <figcaption id="versions-caption">Module versions: machines per version</figcaption>
      <Bars bars={bars} colour={colour} chart="versions" label="Machines running each version of each module" />
      <ul class="legend">
        {bars.map((b) => (
          <li data-legend={b.label}>
            <strong>{b.label}</strong>:{' '}
            {b.parts.map((p, i) => (
              <span>
                {i > 0 ? ', ' : ''}
                <span class="swatch" style={{ background: colour(p.key) }} aria-hidden="true" /> {p.key} on {p.count}
              </span>
            ))}
          </li>
        ))}
      </ul>
    </figure>
  );
}

const HEALTH_HEIGHT = 120;

/** The fleet's health counts over the readings the dashboard recorded. */
export function HealthChart({ points }: { points: readonly HealthPoint[] }) {
  const lines = healthLines(points, { width: WIDTH - 50, height: HEALTH_HEIGHT });
  if (points.length === 0) return null;
  return (
    <figure class="figure" aria-labelledby="health-caption">
      <figcaption id="health-caption">
        Health over time ({lines.from ? `${when(lines.from)} to ${when(lines.to ?? '')}` : ''}, {points.length} reading(s))
      </figcaption>
      <svg
        class="chart"
        data-chart="health"
        data-points={points.length}
        role="img"
        aria-label="Machines healthy, changing, unhealthy and offline over time"
        viewBox={`0 0 ${WIDTH} ${HEALTH_HEIGHT + 10}`}
        width={WIDTH}
        height={HEALTH_HEIGHT + 10}
      >
        <title>Machines healthy, changing, unhealthy and offline over time</title>
        <g transform="translate(40,5)">
          <line x1={0} y1={HEALTH_HEIGHT} x2={WIDTH - 50} y2={HEALTH_HEIGHT} class="axis" />
          <line x1={0} y1={0} x2={0} y2={HEALTH_HEIGHT} class="axis" />
          <text x={-6} y={8} text-anchor="end" class="chart-label">
            {lines.max}
          </text>
          <text x={-6} y={HEALTH_HEIGHT} text-anchor="end" class="chart-label">
            0
          </text>
          {lines.series.map((s) => (
            <polyline points={s.points} fill="none" stroke={STATE_COLOURS[s.key]} stroke-width={2} data-series={s.key} />
          ))}
        </g>
      </svg>
      <Legend
        items={HEALTH_SERIES.map((k) => ({
          key: k,
          colour: STATE_COLOURS[k] ?? '#4a5361',
          text: `${k} ${points[points.length - 1]?.[k] ?? 0}`,
        }))}
      />
    </figure>
  );
}

/** A rollout's waves, their machines by state. */
export function WaveChart({ rollout }: { rollout: RolloutView }) {
  const bars = waveBars(rollout);
  const used = [...new Set(bars.flatMap((b) => b.parts.filter((p) => p.count > 0).map((p) => p.key)))];
  return (
    <figure class="figure" aria-label={`Progress of rollout ${rollout.name} by wave`}>
      <Bars
        bars={bars}
        colour={(k) => STATE_COLOURS[k] ?? '#4a5361'}
        chart="waves"
        label={`Rollout ${rollout.name}: machines of each wave by state`}
      />
      <Legend
        items={used.map((k) => ({
          key: k,
          colour: STATE_COLOURS[k] ?? '#4a5361',
          text: `${k === 'gone' ? 'no longer exists' : k} ${bars.reduce((n, b) => n + (b.parts.find((p) => p.key === k)?.count ?? 0), 0)}`,
        }))}
      />
    </figure>
  );
}
