import type { StateBackend } from '../engine';

/** Addresses whose deletion the service accepted but has not finished (kept in state as deleting). */
export async function pendingDeletions(backend: StateBackend, stacks: readonly string[]): Promise<string[]> {
  const pending: string[] = [];
  for (const stack of stacks) {
    const state = await backend.read(stack);
    for (const [address, entry] of Object.entries(state.resources)) if (entry.status === 'deleting') pending.push(address);
  }
  return pending.sort();
}

/** The closing lines of an apply: what was done, and plainly what the service is still deleting. */
export function outcomeLines(
  summary: { add: number; change: number; destroy: number },
  pending: readonly string[],
  destroying: boolean,
): string[] {
  const destroyed = Math.max(0, summary.destroy - pending.length);
  const still = pending.length > 0 ? `, ${pending.length} still being deleted on the service` : '';
  if (destroying && pending.length > 0) {
    return [
      `Destroy not finished: ${destroyed} destroyed${still}:`,
      ...pending.map((a) => `  - ${a} (deletion in progress)`),
      'Run `fleetform destroy` again once the service has finished to remove them from state.',
    ];
  }
  const lines = [
    `${destroying ? 'Destroy' : 'Apply'} complete! Resources: ${summary.add} added, ${summary.change} changed, ${destroyed} destroyed${still}.`,
  ];
  if (pending.length > 0) lines.push(...pending.map((a) => `  - ${a} (deletion in progress; a later apply removes it from state)`));
  return lines;
}
