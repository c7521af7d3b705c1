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
import { configView, diffJson, type MachineHealth, machineKind, type MachineRun, partConfig } from '../engine/readings';
import { isObject, type JsonObject, type JsonValue } from '../domain/json-value';
import { isMasked, maskPaths, redact, showValue, type StateEntry, viewSecretPaths } from '../engine';
import { editorName, type EditorName } from './editor-name';
import type { FleetMachine, FragmentRef, MachineDetail } from './view';

const HISTORY_LIMIT = 20;
const LOG_LIMIT = 50;

type Timestamp = { seconds: bigint; nanos: number } | undefined;
const iso = (ts: Timestamp): string => (ts ? new Date(Number(ts.seconds) * 1000 + Math.floor(ts.nanos / 1e6)).toISOString() : '');

/** A part config as the machine kind views it, and the paths of its secrets (those state recorded and those the kind's declarations find). */
function secretView(config: unknown, entry: StateEntry | undefined): { view: JsonObject; paths: string[] } {
  const view: JsonObject = { config: configView(isObject(config as JsonValue) ? (config as Record<string, unknown>) : {}) };
  const attributes = entry?.attributes ?? {};
  return { view, paths: viewSecretPaths(machineKind, view, entry?.sensitive_paths ?? [], attributes) };
}

/** A part config as the machine kind views it, with every secret replaced by a keyed digest. */
export function maskedConfigView(config: unknown, entry: StateEntry | undefined, key: Buffer): JsonObject {
  const { view, paths } = secretView(config, entry);
  return maskPaths(view, paths, 'dashboard', key);
}

/** The text of every secret of a part config: each string at (or under) one of its secret paths. */
export function secretTexts(config: unknown, entry: StateEntry | undefined): string[] {
  const { view, paths } = secretView(config, entry);
  const found = new Set<string>();
  const collect = (v: JsonValue): void => {
    if (typeof v === 'string' && v !== '' && !isMasked(v)) found.add(v);
    else if (Array.isArray(v)) v.forEach(collect);
    else if (isObject(v)) Object.values(v).forEach(collect);
  };
  // The same walk as masking: the value a secret path leads to, whatever it holds.
  const marker = randomBytes(16);
  const masked = maskPaths(view, paths, 'dashboard', marker);
  const walk = (plain: JsonValue, hidden: JsonValue): void => {
    if (plain === hidden) return;
    if (isMasked(hidden)) collect(plain);
    else if (Array.isArray(plain) && Array.isArray(hidden)) plain.forEach((x, i) => walk(x, hidden[i] ?? null));
    else if (isObject(plain) && isObject(hidden)) for (const [k, x] of Object.entries(plain)) walk(x, hidden[k] ?? null);
  };
  walk(view, masked);
  return [...found];
}

/** Text with every occurrence of a secret replaced by `(sensitive)` (longest first, so no part of a longer secret is left). */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(s).join('(sensitive)');
  return out;
}

/** Edits newest first, each the change from the config before it to the one after it. */
export function historyDiffs(
  current: JsonObject,
  edits: ReadonlyArray<{ at: string; editor: EditorName; before: JsonObject }>,
): MachineDetail['history'] {
  return edits.map((e, i) => {
    const after = i === 0 ? current : (edits[i - 1]?.before ?? current);
    const changes = diffJson(e.before, after).map((c) => ({ path: c.path, before: showValue(c.before), after: showValue(c.after) }));
    return { at: e.at, ...e.editor, changes };
  });
}

const fragmentRef = (f: { id: string; name: string | undefined } | undefined): FragmentRef | undefined =>
  f ? { id: f.id, ...(f.name ? { name: f.name } : {}) } : undefined;

/**
 * The machine's components and services: those it reports, each with the fragment it runs it
 * from, then those it runs (`run`, its fragments resolved) that it does not report.
 */
export function resourcesOf(
  reported: ReadonlyArray<{ name: string; api: string; state: string; error: string }>,
  run: MachineRun | undefined,
): MachineDetail['resources'] {
  const entries = (run?.entries ?? []).filter((e) => e.section === 'components' || e.section === 'services');
  const byName = new Map(entries.map((e) => [e.name, e]));
  const shown = reported.map((r) => {
    const fragment = fragmentRef(byName.get(r.name)?.fragment);
    return { ...r, ...(fragment ? { fragment } : {}) };
  });
  const seen = new Set(reported.map((r) => r.name));
  for (const e of entries) {
    if (seen.has(e.name)) continue;
    const fragment = fragmentRef(e.fragment);
    const api = typeof e.entry.api === 'string' ? e.entry.api : '';
    shown.push({ name: e.name, api, state: 'not reported', error: '', ...(fragment ? { fragment } : {}) });
  }
  return shown;
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

/** Fragment names by id: those given, then those the machine's resolved entries name. */
function namesWithRun(names: ReadonlyMap<string, string>, run: MachineRun | undefined): Map<string, string> {
  const out = new Map(names);
  for (const e of run?.entries ?? []) if (e.fragment?.name && !out.has(e.fragment.id)) out.set(e.fragment.id, e.fragment.name);
  return out;
}

/** The text of every secret a part's config holds on the service (for hiding them in its log lines and errors). */
export async function partSecretTexts(client: ServiceClient, partId: string, entry: StateEntry | undefined): Promise<string[]> {
  const app = client.clientFor((await loadServices()).app);
  const part = await app.getRobotPart({ id: partId });
  return secretTexts(partConfig(part.configJson, part.part?.robotConfig), entry);
}

export interface MachineDetailInput {
  readonly client: ServiceClient;
  readonly machine: FleetMachine;
  readonly health: MachineHealth | undefined;
  readonly entry: StateEntry | undefined;
  /** Fragment names by id (those the stacks manage). */
  readonly fragmentNames: ReadonlyMap<string, string>;
  /** What it runs, its fragments resolved (see machineRuns). */
  readonly run?: MachineRun | undefined;
  /** API key names by id, for naming the editors of its history. */
  readonly keyNames?: ReadonlyMap<string, string>;
}

export async function machineDetail(input: MachineDetailInput): Promise<MachineDetail> {
  const app = input.client.clientFor((await loadServices()).app);
  const partId = input.machine.partId;
  const key = randomBytes(32);
  const [{ logs }, part, history] = await Promise.all([
    app.getRobotPartLogs({ id: partId, limit: BigInt(LOG_LIMIT) }),
    app.getRobotPart({ id: partId }),
    app.getRobotPartHistory({ id: partId }),
  ]);
  const currentConfig = partConfig(part.configJson, part.part?.robotConfig);
  const current = maskedConfigView(currentConfig, input.entry, key);
  const older = history.history
    .slice(0, HISTORY_LIMIT)
    .map((h) => ({ h, config: h.old ? (partConfig(h.old.robotConfigJson ?? '', undefined) ?? h.old.robotConfig?.toJson()) : {} }));
  const edits = older.map(({ h, config }) => ({
    at: iso(h.when),
    editor: editorName(h.editedBy, input.keyNames),
    before: maskedConfigView(config, input.entry, key),
  }));
  // A module may log its environment, a resource's error may quote its config: every secret the part holds now or held in its recent history is hidden in text.
  const secrets = [...new Set([currentConfig, ...older.map((o) => o.config)].flatMap((c) => secretTexts(c, input.entry)))];
  const text = (t: string): string => withoutSecrets(t, secrets);
  const machine: FleetMachine = {
    ...input.machine,
    problems: input.machine.problems.map(text),
    modules: input.machine.modules.map((m) => (m.error === undefined ? m : { ...m, error: text(m.error) })),
  };
  return {
    machine,
    config: redact(isObject(input.entry?.attributes?.config) ? input.entry.attributes.config : {}) ?? {},
    fragments: fragmentsOf(input.entry, namesWithRun(input.fragmentNames, input.run)),
    resources: resourcesOf(
      (input.health?.resources ?? []).map((r) => ({ name: r.name, api: r.api, state: r.state, error: text(r.error) })),
      input.run,
    ),
    logs: logs.map((l) => ({ at: iso(l.time), level: l.level, logger: l.loggerName, message: text(l.message) })),
    history: historyDiffs(current, edits),
  };
}
