/** A part is online while its last check-in is at most three intervals old (and at least a second). */
export function onlineThresholdMs(checkInIntervalMs: number): number {
  return Math.max(3 * checkInIntervalMs, 1000);
}
