/** A machine's `health_gate`: read from its attributes, and waited on after a config write. */
import { parseHealthGate } from '../../domain/rollout';
import { serviceStatusSource } from '../health/service-status-source';
import { waitHealthy } from '../health/wait-healthy';
import { isObject, type JsonObject } from '../json';
import type { KindContext, PlanProblem } from '../kind';

/** The gate of a `health_gate` map, with a plan problem per bad key. */
export function gateOf(raw: Readonly<Record<string, string>>): { problems: PlanProblem[] } {
  const { problems } = parseHealthGate(raw);
  return {
    problems: problems.map((p) => ({
      path: `health_gate.${p.key}`,
      message: p.message,
      hint: 'give timeout and settle as durations, e.g. { timeout = "10m", settle = "30s" }',
    })),
  };
}

/** Waits for the machine's health when its view has a gate; a machine without one returns at once. */
export async function passHealthGate(ctx: KindContext, view: JsonObject, partId: string): Promise<void> {
  if (!isObject(view.health_gate)) return;
  const raw: Record<string, string> = {};
  for (const [k, v] of Object.entries(view.health_gate)) if (typeof v === 'string') raw[k] = v;
  const { gate } = parseHealthGate(raw);
  if (!gate) return;
  const source = await ctx.memo('machine-status-source', () => serviceStatusSource(ctx.client));
  await waitHealthy(source, partId, String(view.name), gate);
}
