/**
 * What a machine importing fragments will run: its config resolved (the domain's
 * resolveMachineConfig) against the fragments it reaches, each read once per run, those
 * the stack declares taken as the stack declares them. The resolver looks fragments up
 * synchronously, so the imports it meets are read in rounds until none is missing.
 */
import type { FragmentClient } from '../../api/client';
import { ServiceError } from '../../api/client/errors';
import {
  FRAGMENT_NESTING_LIMIT,
  importLeftOutWarning,
  isRevisionNumber,
  leavesImportOut,
  resolveMachineConfig,
  type FragmentAtVersion,
  type MachineResolution,
} from '../../domain/fragments';
import { childPath } from '../../domain/json-path';
import { joinPath } from '../../domain/issue';
import { decodeStruct } from '../../api/struct-codec';
import { isObject, setOwn, toJson, unknownValue, type JsonObject, type JsonValue } from '../json';
import type { KindContext, PlanNote, PlanProblem } from '../kind';

/** A fragment at a version, or why there is none. */
export type FetchedFragment = FragmentAtVersion | 'unknown-fragment' | 'unknown-version';

/**
 * Reads one fragment at one version (a revision, a tag, or undefined: the latest). A fetch
 * stands for one moment of the service: resolveFetching keeps what it read for every
 * machine it resolves with the same fetch, so make a new one to read anew.
 */
export type FragmentFetch = (id: string, version: string | undefined) => Promise<FetchedFragment>;

/** The revision a fragment the stack declares is taken at: the one its apply will save. */
export const NEXT_REVISION = 'next';

const key = (id: string, version: string | undefined): string => `${id}\u0000${version ?? ''}`;

/** Whether a config imports any fragment. */
export function importsFragments(config: Readonly<Record<string, unknown>>): boolean {
  return Array.isArray(config.fragments) && config.fragments.length > 0;
}

/**
 * What each fetch has read, by fragment and version, once read: shared by every machine
 * resolved with that fetch, so a fleet importing a few fragments resolves each machine
 * once (the rounds are for fragments no machine has read yet).
 */
const readBy = new WeakMap<FragmentFetch, Map<string, FetchedFragment>>();

/** The machine's config resolved, reading the fragments it reaches through `fetch`. */
export async function resolveFetching(
  machine: string,
  config: Readonly<Record<string, unknown>>,
  fetch: FragmentFetch,
): Promise<MachineResolution> {
  let found = readBy.get(fetch);
  if (found === undefined) readBy.set(fetch, (found = new Map()));
  const known = found;
  // Each round reads the imports the previous one met: one more level of nesting per round.
  for (let round = 0; ; round++) {
    const missing = new Map<string, { id: string; version: string | undefined }>();
    const resolution = resolveMachineConfig({
      machine,
      config,
      fragments: (id, version) => {
        const fragment = known.get(key(id, version));
        if (fragment !== undefined) return fragment;
        missing.set(key(id, version), { id, version });
        return 'unknown-fragment';
      },
    });
    if (missing.size === 0 || round > FRAGMENT_NESTING_LIMIT + 1) return resolution;
    await Promise.all([...missing].map(async ([k, m]) => known.set(k, await fetch(m.id, m.version))));
  }
}

/** Reads fragments from the service: NOT_FOUND or no access is an unknown fragment, or version when the fragment exists. */
export function serviceFetch(client: FragmentClient, once: <T>(key: string, load: () => Promise<T>) => Promise<T>): FragmentFetch {
  const exists = (id: string): Promise<boolean> =>
    once(`fragment-exists:${id}`, async () => {
      try {
        await client.getFragment(id);
        return true;
      } catch (err) {
        if (err instanceof ServiceError && (err.code === 'NOT_FOUND' || err.code === 'PERMISSION_DENIED')) return false;
        throw err;
      }
    });
  return (id, version) =>
    once(`fragment-at:${key(id, version)}`, async (): Promise<FetchedFragment> => {
      try {
        const { fragment } = await client.getFragment(id, version);
        return { id, name: fragment.name, revision: fragment.revision, config: fragment.config };
      } catch (err) {
        if (
          !(err instanceof ServiceError) ||
          (err.code !== 'NOT_FOUND' && err.code !== 'PERMISSION_DENIED' && err.code !== 'INVALID_ARGUMENT')
        )
          throw err;
        return version !== undefined && version !== '' && (await exists(id)) ? 'unknown-version' : 'unknown-fragment';
      }
    });
}

/** A fetch over the service that reads each fragment (and each version of one) once for as long as it is kept. */
export function cachedServiceFetch(client: FragmentClient): FragmentFetch {
  const reads = new Map<string, Promise<unknown>>();
  return serviceFetch(client, <T>(key: string, load: () => Promise<T>): Promise<T> => {
    if (!reads.has(key)) reads.set(key, load());
    return reads.get(key) as Promise<T>;
  });
}

/** The time part of a config revision (the part's last write, before the fragments it reaches). */
export const revisionTime = (revision: string): string => revision.split(' ')[0] ?? '';

/** A fragment as the stack declares it, by id: what its apply will save. */
export interface DeclaredFragment {
  readonly name: string;
  readonly config: Record<string, unknown>;
  /** Not on the service yet (this apply creates it): every version a machine names is the declared one. */
  readonly planned?: boolean;
}

/** The fragments of the run's stack that exist already, by id, as the stack declares them. */
function declaredFragments(ctx: KindContext): Promise<Map<string, DeclaredFragment>> {
  return ctx.memo('declared-fragments', async () => new Map<string, DeclaredFragment>());
}

/** Records a fragment as the stack declares it: machines importing it are checked against that. */
export async function declareFragment(ctx: KindContext, id: string, fragment: DeclaredFragment): Promise<void> {
  (await declaredFragments(ctx)).set(id, fragment);
}

/**
 * What a machine importing fragments this apply creates will run, its fragments as the
 * stack declares them: its config resolved (the stand-in ids of the new fragments shown
 * as known after apply) and the names of those new fragments.
 */
export async function runsWithPlannedFragments(
  ctx: KindContext,
  machine: string,
  config: Readonly<Record<string, unknown>>,
): Promise<{ config: JsonValue; created: string[] }> {
  const declared = await declaredFragments(ctx);
  const resolution = await resolveFetching(machine, config, planFetch(ctx));
  const planned = new Set(resolution.imports.filter((i) => declared.get(i.id)?.planned === true).map((i) => i.id));
  const created = [...new Set(resolution.imports.filter((i) => planned.has(i.id)).map((i) => i.name ?? i.id))];
  const unplanned = (v: unknown): JsonValue => {
    if (typeof v === 'string' && planned.has(v)) return unknownValue;
    if (Array.isArray(v)) return v.map(unplanned);
    if (!isObject(v)) return toJson(v);
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) setOwn(out, k, unplanned(x));
    return out;
  };
  return { config: unplanned(resolution.config), created };
}

/**
 * Fragments as a plan sees them: those the stack declares as declared, at their latest
 * revision or a tag that names it (a tag following the fragment moves with it); every
 * other one, and other revisions, from the service, read once per run.
 */
export function planFetch(ctx: KindContext): FragmentFetch {
  let fetch = planFetches.get(ctx);
  if (fetch === undefined) {
    const fromService = serviceFetch(ctx.client.appClient, (k, load) => ctx.memo(k, load));
    fetch = declaredFetch(async (id) => (await declaredFragments(ctx)).get(id), fromService);
    planFetches.set(ctx, fetch);
  }
  return fetch;
}

/** The fetch of each plan's context: one per run, so what it has read is shared by the machines of the run. */
const planFetches = new WeakMap<KindContext, FragmentFetch>();

/** Fragments as declared where `declared` knows them (see planFetch), else as `fromService` reads them. */
export function declaredFetch(declared: (id: string) => Promise<DeclaredFragment | undefined>, fromService: FragmentFetch): FragmentFetch {
  return async (id, version) => {
    const fragment = await declared(id);
    if (!fragment) return fromService(id, version);
    const asDeclared: FragmentAtVersion = { id, name: fragment.name, revision: NEXT_REVISION, config: fragment.config };
    if (version === undefined || version === '' || fragment.planned) return asDeclared;
    if (isRevisionNumber(version)) return fromService(id, version);
    const latest = await fromService(id, undefined);
    const tagged = await fromService(id, version);
    return typeof latest !== 'string' && typeof tagged !== 'string' && tagged.revision === latest.revision ? asDeclared : tagged;
  };
}

/** The fragment a resolved entry came from, by section and name: its id and name. */
export function entrySource(
  resolution: MachineResolution,
  section: string,
  name: string,
): { id: string; name: string | undefined } | undefined {
  for (const i of resolution.imports)
    if (i.entries.some((e) => e.section === section && e.name === name)) return { id: i.id, name: i.name };
  return undefined;
}

/** The name of the entry at `components[3]` of a resolved config. */
export function entryNameAt(config: Readonly<Record<string, unknown>>, section: string, index: number): string | undefined {
  const list = config[section];
  const entry = Array.isArray(list) ? list[index] : undefined;
  return isObject(entry) && typeof entry.name === 'string' ? entry.name : undefined;
}

const RESOLVED_ENTRY = /^config\.(components|services|modules)\[(\d+)\](.*)$/;

/**
 * The domain's machine config rules over what the machine will run (its config resolved
 * with its fragments, variables and mods), and every resolution error: each names the
 * machine, the fragment an entry came from and the field, before any call. An import the
 * machine runs without (a fragment its organization cannot read) is a warning: the
 * service stores it, and the rest of the machine runs.
 */
export async function resolvedConfigChecks(
  ctx: KindContext,
  machine: string,
  config: Readonly<Record<string, unknown>>,
  validate: ConfigRules,
): Promise<{ problems: PlanProblem[]; notes: PlanNote[] }> {
  return resolutionFindings(machine, await resolveFetching(machine, config, planFetch(ctx)), validate);
}

/** The domain's machine config rules, as resolvedConfigChecks applies them. */
export type ConfigRules = (
  config: unknown,
  resolution?: { readonly complete: boolean },
) => { errors: readonly ConfigIssue[]; warnings: readonly ConfigIssue[] };

/**
 * What a plan finds of a machine's resolution: its resolution errors (an import the
 * machine runs without is a warning, see leavesImportOut) and the config rules over what
 * it runs, each entry's issue named by the machine and the fragment it came from.
 */
export function resolutionFindings(
  machine: string,
  resolution: MachineResolution,
  validate: ConfigRules,
): { problems: PlanProblem[]; notes: PlanNote[] } {
  const problems: PlanProblem[] = resolution.errors
    .filter((e) => !leavesImportOut(e))
    .map((e) => ({ path: errorPath(e.field), message: e.message, ...(e.hint ? { hint: e.hint } : {}) }));
  const leftOut: PlanNote[] = resolution.errors
    .filter(leavesImportOut)
    .map((e) => ({ level: 'warning', path: errorPath(e.field), message: importLeftOutWarning(e) }));
  // An import the machine runs without may bring what a resolved check finds missing.
  const result = validate(resolution.config, { complete: leftOut.length === 0 });
  const locate = (issue: ConfigIssue): { path: string; message: string } => {
    const m = RESOLVED_ENTRY.exec(issue.path);
    const section = m?.[1];
    const entry = m && section ? entryNameAt(resolution.config, section, Number(m[2])) : undefined;
    if (!m || !section || entry === undefined) return { path: issue.path, message: `machine ${machine}: ${issue.message}` };
    const path = `${childPath(`config.${section}`, entry)}${m[3] ?? ''}`;
    const source = entrySource(resolution, section, entry);
    const about = source ? `machine ${machine}, fragment ${source.name ?? source.id} (${source.id})` : `machine ${machine}`;
    return { path, message: `${about}: ${path.slice('config.'.length)}: ${issue.message}` };
  };
  for (const e of result.errors) problems.push({ ...locate(e), ...(e.hint ? { hint: e.hint } : {}) });
  const notes: PlanNote[] = [...leftOut, ...result.warnings.map((w): PlanNote => ({ level: 'warning', ...locate(w) }))];
  return { problems, notes };
}

/** Where a resolution error is, as a plan path: in the machine's config (`config.fragments[0]`), or in a fragment's (`config["fragment:<id>.components"]`). */
function errorPath(field: string): string {
  return field.startsWith('fragment:') ? childPath('config', field) : joinPath('config', field);
}

/** An issue of the domain's machine config rules, as a plan takes it. */
interface ConfigIssue {
  readonly path: string;
  readonly message: string;
  readonly hint?: string | undefined;
}

/** A part's config as read: its JSON text, else its Struct. */
export function partConfig(json: string, struct: Uint8Array | undefined): unknown {
  if (json) return JSON.parse(json) as unknown;
  return struct === undefined ? undefined : decodeStruct(struct);
}

/**
 * The revision of a part's latest config as its machine runs it: the time of its last
 * write, then ` +<fragment id>@<revision>` for each fragment its config reaches (in the
 * order the resolution meets them, disabled imports and unknown ones left out), so a new
 * revision of a fragment, or a tag moved, is a new config revision.
 */
export async function configRevision(time: string, config: unknown, partId: string, fetch: FragmentFetch): Promise<string> {
  return (await latestConfigReading(time, config, partId, fetch)).revision;
}

/** A part's latest config as its machine runs it: its revision (see configRevision) and the fragment error of each import it runs without. */
export interface LatestConfigReading {
  readonly revision: string;
  /** `fragments[0]: there is no fragment ...`: the imports left out (see leavesImportOut), as the service reports them on the machine. */
  readonly fragmentErrors: readonly string[];
}

/** What configRevision reads, with the fragment error of each import the machine runs without. */
export async function latestConfigReading(
  time: string,
  config: unknown,
  partId: string,
  fetch: FragmentFetch,
): Promise<LatestConfigReading> {
  if (!isObject(config) || !importsFragments(config)) return { revision: time, fragmentErrors: [] };
  const resolution = await resolveFetching(partId, config, fetch);
  const reached = resolution.imports.filter((i) => i.revision !== undefined && !i.disabled);
  return {
    revision: reached.length === 0 ? time : `${time} ${reached.map((i) => `+${i.id}@${i.revision}`).join(' ')}`,
    fragmentErrors: resolution.errors.filter(leavesImportOut).map((e) => `${e.field}: ${e.detail}`),
  };
}
