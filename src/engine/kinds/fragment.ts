import { randomUUID } from 'node:crypto';
import type { FragmentDetail } from '../../api/client';
import { ServiceError } from '../../api/client/errors';
import { FleetformError } from '../../domain/errors';
import { isRevisionNumber } from '../../domain/fragments';
import { fragmentResource } from '../../domain/resource-attributes';
import { isObject, stableStringify, isUnknown, unknownValue, type Unknown, type JsonObject, type JsonValue } from '../json';
import type { Applied, DesiredValue, Judgement, KindContext, Observation, PlanNote, PlanProblem, ResourceKind } from '../kind';
import { defineKind } from '../kind-declaration';
import { configDocument, configView, MANAGED_LISTS } from './machine-config-view';
import { unlessNotFound } from './not-found';
import { declareFragment } from './machine-fragments';

export const fragmentDeclaration = defineKind(fragmentResource);

/**
 * A fragment as its kind compares it: the config as an object whose entry lists are keyed
 * by name (a change shows as `config.components.board.attributes.pin`), every other key
 * of the config (nested `fragments`, `fragment_mods`) as written; unknown while a
 * reference in it (a nested fragment created by the same apply) is not known yet.
 */
type FragmentView = {
  name: string;
  config: JsonObject | Unknown;
  visibility: 'private' | 'public' | 'public_unlisted';
  organization_id: string;
};

/** Thrown when the fragment was saved on the service after the plan read it. */
export class FragmentChangedError extends FleetformError {}

/** A fragment config as the kind compares it (see FragmentView). */
export function fragmentConfigView(config: Readonly<Record<string, unknown>>): JsonObject {
  const view: JsonObject = {};
  for (const [key, value] of Object.entries(config)) {
    if ((MANAGED_LISTS as readonly string[]).includes(key)) continue;
    view[key] = value as JsonValue;
  }
  return { ...view, ...configView(config) };
}

/** Back to the service's form: the entry lists as lists again. */
export function fragmentConfigDocument(view: JsonObject): Record<string, JsonValue> {
  return configDocument(view, view);
}

function parseConfig(text: string | Unknown): { config: Record<string, unknown> | Unknown; problem?: PlanProblem } {
  if (isUnknown(text)) return { config: unknownValue };
  try {
    const parsed: unknown = JSON.parse(text);
    if (isObject(parsed)) return { config: parsed };
  } catch {
    /* reported below */
  }
  return {
    config: {},
    problem: {
      path: 'config',
      message: 'config is not a JSON object',
      hint: 'give the fragment config as JSON text of an object, e.g. {"components":[]}',
    },
  };
}

function viewOf(detail: FragmentDetail): FragmentView {
  const f = detail.fragment;
  return { name: f.name, config: fragmentConfigView(f.config), visibility: f.visibility, organization_id: f.organizationId };
}

function versionOf(detail: FragmentDetail): string {
  return detail.fragment.lastUpdated?.toISOString() ?? `revision ${detail.fragment.revision}`;
}

/** How many machines import the fragment: those following its latest revision, and all of them. */
async function usageOf(ctx: KindContext, id: string): Promise<{ latest: number; all: number; byVersion: Record<string, number> }> {
  const usage = (await unlessNotFound(() => ctx.client.appClient.getFragmentUsage(id))) ?? [];
  const byVersion: Record<string, number> = {};
  let latest = 0;
  let all = 0;
  for (const u of usage) {
    all += u.machines;
    if (u.version === undefined || u.version === '') latest += u.machines;
    else byVersion[u.version] = (byVersion[u.version] ?? 0) + u.machines;
  }
  return { latest, all, byVersion };
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** How the note on a changed fragment's reach begins (more is said of the machines of the plan once it is made). */
export const REACH_NOTE = 'this change reaches';

function stale(name: string): FragmentChangedError {
  return new FragmentChangedError(`fragment ${name} was changed on the service after the plan was made; nothing was overwritten`, {
    hint: 'run `fleetform plan` again to see the change, then apply',
  });
}

/** A fragment of an organization: a config machines import, saved as numbered revisions. */
export const fragmentKind: ResourceKind<typeof fragmentDeclaration, FragmentView> = {
  type: fragmentDeclaration.type,
  declaration: fragmentDeclaration,
  // Machines import it by id: the new one must exist before they move to it.
  replaceOrder: 'create-first',

  async desire(ctx, attributes, prior): Promise<DesiredValue<FragmentView>> {
    const parsed = parseConfig(attributes.config);
    // Machines importing it are checked against it as declared.
    const id = prior?.ids.id;
    if (id && !isUnknown(parsed.config) && !parsed.problem)
      await declareFragment(ctx, id, { name: attributes.name, config: parsed.config });
    const config = isUnknown(parsed.config) ? unknownValue : fragmentConfigView(parsed.config);
    const view: FragmentView = {
      name: attributes.name,
      config,
      visibility: attributes.visibility ?? 'private',
      organization_id: attributes.organization_id || ctx.organizationId,
    };
    return { view, private: {}, notes: [], problems: parsed.problem ? [parsed.problem] : [] };
  },

  async standIn(ctx, view): Promise<Readonly<Record<string, string>>> {
    // An id no fragment on the service has: what machines importing the new fragment are checked with.
    const id = randomUUID();
    if (isObject(view.config))
      await declareFragment(ctx, id, { name: view.name, config: fragmentConfigDocument(view.config), planned: true });
    return { id };
  },

  async observe(ctx, entry): Promise<Observation<FragmentView> | undefined> {
    const id = entry.ids.id;
    const detail = id ? await unlessNotFound(() => ctx.client.appClient.getFragment(id)) : undefined;
    if (!detail || !id) return undefined;
    const usage = await usageOf(ctx, id);
    const facts: Record<string, string> = { revision: detail.fragment.revision, machines: String(usage.all) };
    const tags = detail.tags.map((t) => `${t.tag}=${t.revision}`).join(', ');
    if (tags) facts.tags = tags;
    return { view: viewOf(detail), version: versionOf(detail), facts, kindData: { usage } };
  },

  judge({ current, desired, observation, replaceReasons }): Judgement {
    const notes: PlanNote[] = [];
    const usage = observation?.kindData?.usage;
    if (!isObject(usage) || stableStringify(current.config) === stableStringify(desired.config) || replaceReasons.length > 0)
      return { problems: [], notes };
    const latest = typeof usage.latest === 'number' ? usage.latest : 0;
    const all = typeof usage.all === 'number' ? usage.all : 0;
    // A revision pin reads `rev 4`, a tag as named.
    const pinned = isObject(usage.byVersion)
      ? Object.entries(usage.byVersion).map(([v, n]) => `${isRevisionNumber(v) ? `rev ${v}` : v}: ${String(n)}`)
      : [];
    const reached = [...(latest > 0 ? [`latest: ${latest}`] : []), ...pinned];
    const versions = isObject(usage.byVersion) ? Object.keys(usage.byVersion) : [];
    const tagged = versions.some((v) => !isRevisionNumber(v));
    const revisionPinned = versions.some(isRevisionNumber);
    notes.push({
      level: all > 0 ? 'warning' : 'info',
      path: 'config',
      message:
        all === 0
          ? 'no machine imports this fragment now'
          : `${REACH_NOTE} ${plural(all, 'machine', 'machines')} now (${reached.join(', ')})` +
            (tagged ? '; those following a tag run it once the tag names the new revision' : '') +
            (revisionPinned ? '; those pinned to a revision stay on it' : ''),
    });
    return { problems: [], notes };
  },

  async create(ctx, desired, checkpoint): Promise<Applied> {
    const config = isObject(desired.config) ? fragmentConfigDocument(desired.config) : {};
    const created = await ctx.client.appClient.createFragment(desired.organization_id, desired.name, config, desired.visibility);
    const applied = { ids: { id: created.id }, outputs: { id: created.id, revision: created.revision } };
    await checkpoint(applied);
    return applied;
  },

  async update(ctx, entry, desired, plannedVersion): Promise<Applied> {
    const id = entry.ids.id ?? '';
    const detail = await ctx.client.appClient.getFragment(id);
    if (plannedVersion !== null && versionOf(detail) !== plannedVersion) throw stale(desired.name);
    const config = isObject(desired.config) ? fragmentConfigDocument(desired.config) : {};
    const same = stableStringify(viewOf(detail)) === stableStringify(desired);
    if (same) return { ids: { id }, outputs: { id, revision: detail.fragment.revision } };
    try {
      const saved = await ctx.client.appClient.updateFragment(id, desired.name, config, {
        visibility: desired.visibility,
        ...(detail.fragment.lastUpdated ? { lastKnownUpdate: detail.fragment.lastUpdated } : {}),
      });
      return { ids: { id }, outputs: { id, revision: saved.revision } };
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'FAILED_PRECONDITION') throw stale(desired.name);
      throw err;
    }
  },

  async delete(ctx, entry) {
    const id = entry.ids.id;
    if (!id) return 'deleted';
    try {
      await unlessNotFound(() => ctx.client.appClient.deleteFragment(id));
    } catch (err) {
      if (!(err instanceof ServiceError) || err.code !== 'FAILED_PRECONDITION') throw err;
      throw new FleetformError(`cannot delete fragment ${id}: ${err.detail}`, {
        hint: 'remove its imports from the machines and fragments that use it first (those fleetform manages change before it in the same run)',
      });
    }
    return 'deleted';
  },

  retainOnDelete: () => false,

  attributesOf(view): JsonObject {
    const config = isObject(view.config) ? JSON.stringify(fragmentConfigDocument(view.config)) : unknownValue;
    return { name: view.name, config, visibility: view.visibility, organization_id: view.organization_id };
  },

  identity(view) {
    const name = typeof view.name === 'string' ? view.name : '';
    const organizationId = typeof view.organization_id === 'string' ? view.organization_id : '';
    return name ? { key: { name, organization_id: organizationId }, label: `fragment ${name}` } : undefined;
  },

  async findCreated(ctx, key, managedIds): Promise<Applied | undefined> {
    const found = (await ctx.client.appClient.listFragments(String(key.organization_id || ctx.organizationId))).find(
      (f) => f.name === key.name && !managedIds.has(f.id),
    );
    return found ? { ids: { id: found.id }, outputs: { id: found.id, revision: found.revision } } : undefined;
  },

  async importById(ctx, id): Promise<Applied | undefined> {
    const detail = await unlessNotFound(() => ctx.client.appClient.getFragment(id));
    return detail ? { ids: { id }, outputs: { id, revision: detail.fragment.revision } } : undefined;
  },
};
