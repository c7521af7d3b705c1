import { ServiceError } from '../../api/client/errors';
import type { LocationDetail } from '../../api/client/app-client';
import { FleetformError } from '../../domain/errors';
import { locationResource } from '../../domain/resource-attributes';
import type { Applied, DesiredValue, Observation, ResourceKind } from '../kind';
import { defineKind, type ViewOf } from '../kind-declaration';
import { unlessNotFound } from './not-found';

export const locationDeclaration = defineKind(locationResource);

type LocationView = ViewOf<typeof locationDeclaration>;

/** The view of a location: a top-level one has a null parent (the service's empty id). */
function locationView(location: LocationDetail): LocationView {
  return { name: location.name, parent_location_id: location.parentLocationId || null, organization_id: location.organizationId };
}

function versionOf(location: LocationDetail): string {
  return `${location.name}\u0000${location.parentLocationId}`;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A location of an organization; machines name it as their `location_id`. */
export const locationKind: ResourceKind<typeof locationDeclaration> = {
  type: locationDeclaration.type,
  declaration: locationDeclaration,
  // Names need not be unique, and the machines of a replaced location move with it
  // (their location_id forces their replacement): the new one must exist first.
  replaceOrder: 'create-first',

  async desire(ctx, attributes): Promise<DesiredValue<LocationView>> {
    return {
      view: {
        name: attributes.name,
        parent_location_id: attributes.parent_location_id || null,
        organization_id: attributes.organization_id || ctx.organizationId,
      },
      private: {},
      notes: [],
      problems: [],
    };
  },

  async observe(ctx, entry): Promise<Observation<LocationView> | undefined> {
    const id = entry.ids.id;
    const location = id ? await unlessNotFound(() => ctx.client.appClient.getLocation(id)) : undefined;
    if (!location) return undefined;
    return { view: locationView(location), version: versionOf(location), facts: {} };
  },

  async create(ctx, desired, checkpoint): Promise<Applied> {
    const location = await ctx.client.appClient.createLocation(
      desired.organization_id,
      desired.name,
      desired.parent_location_id || undefined,
    );
    const applied = { ids: { id: location.id }, outputs: { id: location.id } };
    await checkpoint(applied);
    return applied;
  },

  async update(ctx, entry, desired, plannedVersion): Promise<Applied> {
    const id = entry.ids.id ?? '';
    const current = await ctx.client.appClient.getLocation(id);
    if (plannedVersion !== null && versionOf(current) !== plannedVersion) {
      throw new FleetformError(`location ${id} changed on the service since the plan was made`, { hint: 'plan again' });
    }
    await ctx.client.appClient.updateLocation(id, desired.name, desired.parent_location_id ?? '');
    return { ids: entry.ids, outputs: entry.outputs };
  },

  async delete(ctx, entry) {
    const id = entry.ids.id;
    if (!id) return 'deleted';
    try {
      await unlessNotFound(() => ctx.client.appClient.deleteLocation(id));
    } catch (err) {
      if (!(err instanceof ServiceError) || err.code !== 'FAILED_PRECONDITION') throw err;
      throw new FleetformError(`cannot delete location ${id}: ${err.detail}`, {
        hint: 'remove or move the machines and locations it holds first (a machine placed in it by reference is deleted before it in the same run)',
      });
    }
    return 'deleted';
  },

  retainOnDelete: () => false,

  identity(view) {
    const name = text(view.name);
    return name
      ? {
          key: { name, organization_id: text(view.organization_id), parent_location_id: text(view.parent_location_id) },
          label: `location ${name}`,
        }
      : undefined;
  },

  async findCreated(ctx, key, managedIds): Promise<Applied | undefined> {
    const candidates = (await ctx.client.appClient.listLocations(text(key.organization_id))).filter(
      (l) => l.name === key.name && !managedIds.has(l.id),
    );
    for (const candidate of candidates) {
      const location = await unlessNotFound(() => ctx.client.appClient.getLocation(candidate.id));
      if (location && location.parentLocationId === text(key.parent_location_id))
        return { ids: { id: location.id }, outputs: { id: location.id } };
    }
    return undefined;
  },

  async importById(ctx, id): Promise<Applied | undefined> {
    const location = await unlessNotFound(() => ctx.client.appClient.getLocation(id));
    return location ? { ids: { id }, outputs: { id } } : undefined;
  },
};
