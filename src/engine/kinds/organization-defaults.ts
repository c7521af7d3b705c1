import { ServiceError } from '../../api/client/errors';
import { FleetformError } from '../../domain/errors';
import { defaultImportsJson, defaultImportsOf, parseDefaultFragments } from '../../domain/organization-defaults';
import { organizationDefaultsResource } from '../../domain/resource-attributes';
import { isUnknown, stableStringify, unknownValue, type JsonObject, type JsonValue, type Unknown } from '../json';
import type { Applied, DesiredValue, KindContext, Observation, PlanNote, PlanProblem, ResourceKind } from '../kind';
import { defineKind } from '../kind-declaration';
import { unlessNotFound } from './not-found';

export const organizationDefaultsDeclaration = defineKind(organizationDefaultsResource);

/** The defaults as the kind compares them: the imports as a list (each as a machine config writes it), not the JSON text code gives. */
type OrganizationDefaultsView = { fragments: JsonValue[] | Unknown; organization_id: string };

/** Thrown when the organization's defaults changed on the service after the plan read them. */
export class DefaultsChangedError extends FleetformError {}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The defaults' version: their JSON, which changes exactly when they do. */
const versionOf = (fragments: readonly JsonValue[]): string => stableStringify(fragments);

/** The organization's default imports as it holds them now. */
async function currentDefaults(ctx: KindContext, organizationId: string): Promise<JsonValue[]> {
  return defaultImportsJson((await ctx.client.appClient.getOrganization(organizationId)).defaultFragments);
}

/** The fragments code names that the organization cannot import: certain failures of the write. */
async function missingFragments(ctx: KindContext, fragments: readonly JsonValue[]): Promise<PlanProblem[]> {
  const problems: PlanProblem[] = [];
  for (const [n, i] of defaultImportsOf(fragments).entries()) {
    const found = await ctx.memo(`fragment:${i.id}`, () => unlessNotFound(() => ctx.client.appClient.getFragment(i.id)));
    if (!found)
      problems.push({
        path: `fragments[${n}].id`,
        message: `no fragment ${i.id} the organization's machines may import`,
        hint: "give the id of a fragment of the organization (a Fragment construct's, or an existing one's) or a public fragment's",
      });
  }
  return problems;
}

/** A note when a new declaration takes over defaults the organization already has: they are replaced. */
async function takeOverNote(ctx: KindContext, organizationId: string, desired: readonly JsonValue[]): Promise<PlanNote[]> {
  const current = await currentDefaults(ctx, organizationId);
  if (current.length === 0 || versionOf(current) === versionOf(desired)) return [];
  const ids = defaultImportsOf(current).map((i) => i.id);
  return [
    {
      level: 'warning',
      path: 'fragments',
      message: `organization ${organizationId} already has default fragments (${ids.join(', ')}): this apply replaces them with the ones code declares`,
      value: current,
    },
  ];
}

/** An organization's default fragments: read with GetOrganization, written (and cleared) with UpdateOrganization. */
export const organizationDefaultsKind: ResourceKind<typeof organizationDefaultsDeclaration, OrganizationDefaultsView> = {
  type: organizationDefaultsDeclaration.type,
  declaration: organizationDefaultsDeclaration,
  // One list per organization: the old one is cleared before another organization's is set.
  replaceOrder: 'delete-first',

  async desire(ctx, attributes, prior): Promise<DesiredValue<OrganizationDefaultsView>> {
    const organizationId = attributes.organization_id || ctx.organizationId;
    if (isUnknown(attributes.fragments)) {
      const note: PlanNote = {
        level: 'info',
        path: 'fragments',
        message: 'the default fragments name a fragment this apply creates: they are known once it exists',
      };
      return { view: { fragments: unknownValue, organization_id: organizationId }, private: {}, notes: [note], problems: [] };
    }
    const parsed = parseDefaultFragments(attributes.fragments);
    if (!parsed.ok) {
      const problems = parsed.problems.map((p) => ({ path: p.path, message: p.message, ...(p.hint ? { hint: p.hint } : {}) }));
      return { view: { fragments: [], organization_id: organizationId }, private: {}, notes: [], problems };
    }
    const fragments = defaultImportsJson(parsed.imports);
    const problems = await missingFragments(ctx, fragments);
    const notes = prior === undefined && problems.length === 0 ? await takeOverNote(ctx, organizationId, fragments) : [];
    return { view: { fragments, organization_id: organizationId }, private: {}, notes, problems };
  },

  async observe(ctx, entry): Promise<Observation<OrganizationDefaultsView> | undefined> {
    const id = entry.ids.id;
    if (!id) return undefined;
    const fragments = await currentDefaults(ctx, id);
    return { view: { fragments, organization_id: id }, version: versionOf(fragments), facts: {} };
  },

  async create(ctx, desired, checkpoint): Promise<Applied> {
    const applied = { ids: { id: desired.organization_id }, outputs: { id: desired.organization_id } };
    await checkpoint(applied);
    await ctx.client.appClient.setDefaultFragments(desired.organization_id, defaultImportsOf(knownFragments(desired)));
    return applied;
  },

  async update(ctx, entry, desired, plannedVersion): Promise<Applied> {
    const id = entry.ids.id ?? desired.organization_id;
    if (plannedVersion !== null && versionOf(await currentDefaults(ctx, id)) !== plannedVersion)
      throw new DefaultsChangedError(`the default fragments of organization ${id} changed on the service after the plan was made`, {
        hint: 'run `fleetform plan` again to see the change, then apply',
      });
    await ctx.client.appClient.setDefaultFragments(id, defaultImportsOf(knownFragments(desired)));
    return { ids: entry.ids, outputs: entry.outputs };
  },

  async delete(ctx, entry) {
    const id = entry.ids.id;
    if (id) await ctx.client.appClient.setDefaultFragments(id, []);
    return 'deleted';
  },

  retainOnDelete: () => false,

  attributesOf(view): JsonObject {
    const fragments = isUnknown(view.fragments) ? unknownValue : JSON.stringify(view.fragments);
    return { fragments, organization_id: view.organization_id };
  },

  identity(view) {
    const organizationId = text(view.organization_id);
    return organizationId
      ? { key: { organization_id: organizationId }, label: `default fragments of organization ${organizationId}` }
      : undefined;
  },

  // The organization always exists: an interrupted create left it, perhaps without its defaults written.
  async findCreated(_ctx, key, managedIds): Promise<Applied | undefined> {
    const id = text(key.organization_id);
    if (!id || managedIds.has(id)) return undefined;
    return { ids: { id }, outputs: { id } };
  },

  async importById(ctx, id): Promise<Applied | undefined> {
    try {
      await ctx.client.appClient.getOrganization(id);
    } catch (err) {
      // The service hides an organization the key has no grant in: to the caller there is none.
      if (err instanceof ServiceError && (err.code === 'NOT_FOUND' || err.code === 'PERMISSION_DENIED')) return undefined;
      throw err;
    }
    return { ids: { id }, outputs: { id } };
  },
};

/** The imports to write: known by apply, when every fragment they name exists. */
function knownFragments(view: OrganizationDefaultsView): JsonValue[] {
  if (!isUnknown(view.fragments)) return view.fragments;
  throw new FleetformError(`the default fragments of organization ${view.organization_id} are not known yet`, {
    hint: 'apply the fragments they name first',
  });
}
