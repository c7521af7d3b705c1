/**
 * What simulated machines did while no emulator ran: each check-in their interval implies
 * between the last one recorded and now, replayed at the instant it would have happened.
 * A long gap is covered by at most `maxSteps` check-ins, evenly spaced, the last at `now`.
 */
export const CATCH_UP_STEPS = 20;

/** The instants of the check-ins missed between `from` (the last recorded) and `now`; none when no interval has passed. */
export function missedCheckIns(from: number, now: number, intervalMs: number, maxSteps = CATCH_UP_STEPS): number[] {
  const gap = now - from;
  if (!(intervalMs > 0) || gap < intervalMs) return [];
  const steps = Math.min(Math.floor(gap / intervalMs), maxSteps);
  const spacing = steps === Math.floor(gap / intervalMs) ? intervalMs : gap / steps;
  return Array.from({ length: steps }, (_, i) => Math.round(from + spacing * (i + 1)));
}
