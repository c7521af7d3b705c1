/**
 * A machine's page: the config fleetform applied (from state, secrets masked there), its
 * fragments, its resources as it reports them, its recent logs and its part's history with
 * a diff per edit. The history holds configs as the service kept them, so every secret in
 * it is masked (by the machine kind's declarations and the state's secret paths) before a
 * diff is made, and shown only as `(sensitive)`.
 */
import { randomBytes } from 'node:crypto';
import type { ServiceClient } from '../api/client';
import { loadServices } from '../api/services';
import { diffJson } from '../engine/diff';
import { isObject, type JsonObject, type JsonValue } from '../engine/json';
import { configView } from '../engine/kinds/machine-config-view';
import { partConfig } from '../engine/kinds/machine-fragments';
import type { MachineHealth } from '../engine/kinds/machine-health';
import { machineKind } from '../engine/kinds/machine';
import { maskPaths, viewSecretPaths } from '../engine/mask';
import { redact, showValue } from '../engine/render/values';
import type { StateEntry } from '../engine/state/schema';
import type { FleetMachine, MachineDetail } from './view';

const HISTORY_LIMIT = 20;
const LOG_LIMIT = 50;

type Timestamp = { seconds: bigint; nanos: number } | undefined;
const iso = (ts: Timestamp): string => (ts ? new Date(Number(ts.seconds) * 1000 + Math.floor(ts.nanos / 1e6)).toISOString() : '');

/** A part config as the machine kind views it, with every secret replaced by a keyed digest. */
export function maskedConfigView(config: unknown, entry: StateEntry | undefined, key: Buffer): JsonObject {
  const view: JsonObject = { config: configView(isObject(config as JsonValue) ? (config as Record<string, unknown>) : {}) };
  const attributes = entry?.attributes ?? {};
  const paths = viewSecretPaths(machineKind, view, entry?.sensitive_paths ?? [], attributes);
  return maskPaths(view, paths, 'dashboard', key);
}

/** Edits newest first, each the change from the config before it to the one after it. */
export function historyDiffs(current: JsonObject, edits: ReadonlyArray<{ at: string; editedBy: string; before: JsonObject }>): MachineDetail['history'] {
  return edits.map((e, i) => {
    const after = i === 0 ? current : (edits[i - 1]?.before ?? current);
    const changes = diffJson(e.before, after).map((c) => ({ path: c.path, before: showValue(c.before), after: showValue(c.after) }));
    return { at: e.at, editedBy: e.editedBy, changes };
  });
}

function fragmentsOf(entry: StateEntry | undefined, names: ReadonlyMap<string, string>): MachineDetail['fragments'] {
  const config = isObject(entry?.attributes?.config) ? entry.attributes.config : {};
  const imports = Array.isArray(config.fragments) ? config.fragments : [];
  return imports.flatMap((f) => {
    const id = typeof f === 'string' ? f : isObject(f) && typeof f.id === 'string' ? f.id : undefined;
    if (id === undefined) return [];
    const version = isObject(f) && typeof f.version === 'string' ? f.version : undefined;
    const name = names.get(id);
    return [{ id, ...(name ? { name } : {}), ...(version ? { version } : {}) }];
  });
}

export interface MachineDetailInput {
  readonly client: ServiceClient;
  readonly machine: FleetMachine;
  readonly health: MachineHealth | undefined;
  readonly entry: StateEntry | undefined;
  /** Fragment names by id (those the stacks manage). */
  readonly fragmentNames: ReadonlyMap<string, string>;
}

export async function machineDetail(input: MachineDetailInput): Promise<MachineDetail> {
  const app = input.client.clientFor((await loadServices()).app);
  const partId = input.machine.partId;
  const key = randomBytes(32);
  const [{ logs }, part, history] = await Promise.all([app.getRobotPartLogs({ id: partId, limit: BigInt(LOG_LIMIT) }), app.getRobotPart({ id: partId }), app.getRobotPartHistory({ id: partId })]);
  const current = maskedConfigView(partConfig(part.configJson, part.part?.robotConfig), input.entry, key);
  const edits = history.history.slice(0, HISTORY_LIMIT).map((h) => ({
    at: iso(h.when),
    editedBy: h.editedBy?.value ?? '',
    before: maskedConfigView(h.old ? partConfig(h.old.robotConfigJson ?? '', undefined) ?? h.old.robotConfig?.toJson() : {}, input.entry, key),
  }));
  return {
    machine: input.machine,
    config: redact(isObject(input.entry?.attributes?.config) ? input.entry.attributes.config : {}) ?? {},
    fragments: fragmentsOf(input.entry, input.fragmentNames),
    resources: (input.health?.resources ?? []).map((r) => ({ name: r.name, api: r.api, state: r.state, error: r.error })),
    logs: logs.map((l) => ({ at: iso(l.time), level: l.level, logger: l.loggerName, message: l.message })),
    history: historyDiffs(current, edits),
  };
}
