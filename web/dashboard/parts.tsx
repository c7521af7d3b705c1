/** Small pieces every page uses. */
import type { MachineHealthName } from '../../src/dashboard/view';

const HEALTH_WORDS: Readonly<Record<MachineHealthName, string>> = {
  healthy: 'healthy',
  starting: 'starting',
  held: 'held by maintenance',
  behind: 'behind',
  unhealthy: 'unhealthy',
  unreachable: 'unreachable',
};

/** A health state in words and colour (the words carry it; the colour only helps). */
export function HealthBadge({ health }: { health: MachineHealthName }) {
  return <span class={`badge b-${health}`}>{HEALTH_WORDS[health]}</span>;
}

/** A revision (an RFC 3339 time, then fragment revisions) short enough for a cell. */
export function shortRevision(revision: string): string {
  const time = revision.split(' ')[0] ?? revision;
  const rest = revision.length > time.length ? ' +' : '';
  return `${time.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}${rest}`;
}

export function when(iso: string): string {
  return iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '-';
}
