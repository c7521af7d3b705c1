/**
 * What a machine importing fragments will run at plan: its config resolved against the
 * fragments it reaches (see fragment-fetch), each read once per run, those the stack
 * declares taken as the stack declares them, and the findings of that resolution.
 */
import {
  importLeftOutWarning,
  isRevisionNumber,
  leavesImportOut,
  type FragmentAtVersion,
  type MachineResolution,
} from '../../domain/fragments';
import { childPath } from '../../domain/json-path';
import { joinPath } from '../../domain/issue';
import { resolveFetching, serviceFetch, type FragmentFetch } from '../fragment-fetch';
import { isObject, setOwn, toJson, unknownValue, type JsonObject, type JsonValue } from '../json';
import type { KindContext, PlanNote, PlanProblem } from '../kind';

/** The revision a fragment the stack declares is taken at: the one its apply will save. */
export const NEXT_REVISION = 'next';

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
