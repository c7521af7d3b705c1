import type { ServiceClient } from '../api/client';
import { FleetformError } from '../domain/errors';
import type { ProviderSettings } from './desired/stack';
import type { KindContext } from './kind';

/** Where a stack's resources live on the service. */
export interface Target {
  readonly organizationId: string;
  /** The location machines default to; empty when the organization has none or several and the provider names none. */
  readonly locationId: string;
  /** Whether the provider (or the run's configured default) names the location, rather than it being the organization's only one. */
  readonly locationNamed?: boolean;
}

/**
 * The organization and location a provider block names, checked against what the API key
 * sees; when it names none, `defaults` (the embedded emulator's), else the only one there is.
 */
export async function resolveTarget(client: ServiceClient, provider: ProviderSettings, defaults: Partial<Target> = {}): Promise<Target> {
  let organizationId = provider.organizationId ?? defaults.organizationId;
  if (!organizationId) {
    const orgs = await client.appClient.listOrganizations();
    if (orgs.length !== 1) {
      throw new FleetformError(
        orgs.length === 0 ? 'the API key can see no organization' : `the API key can see ${orgs.length} organizations`,
        {
          path: 'FleetProvider.organizationId',
          hint: `set organizationId on the FleetProvider; choices: ${orgs.map((o) => `${o.id} (${o.name})`).join(', ') || 'none'}`,
        },
      );
    }
    organizationId = (orgs[0] as { id: string }).id;
  } else if (provider.organizationId) {
    const orgs = await client.appClient.listOrganizations();
    if (!orgs.some((o) => o.id === provider.organizationId)) {
      throw new FleetformError(`the API key can see no organization ${provider.organizationId}`, {
        path: 'FleetProvider.organizationId',
        hint: `use one it can see: ${orgs.map((o) => `${o.id} (${o.name})`).join(', ') || 'none'}`,
      });
    }
  }
  let locationId = provider.locationId ?? (provider.organizationId ? undefined : defaults.locationId);
  const locationNamed = Boolean(locationId);
  if (!locationId) {
    // Without one location to default to (none yet, or several), only a machine that names
    // no location is a problem: the machine kind reports it (see defaultLocationProblem).
    const locations = await client.appClient.listLocations(organizationId);
    locationId = locations.length === 1 ? (locations[0] as { id: string }).id : '';
  } else if (provider.locationId) {
    const locations = await client.appClient.listLocations(organizationId);
    if (!locations.some((l) => l.id === provider.locationId)) {
      throw new FleetformError(`organization ${organizationId} has no location ${provider.locationId}`, {
        path: 'FleetProvider.locationId',
        hint: `use one of its locations: ${locations.map((l) => `${l.id} (${l.name})`).join(', ') || 'none'}`,
      });
    }
  }
  return { organizationId, locationId, locationNamed };
}

/** What a run's kind context carries beside the client and target. */
export type RunSettings = Pick<KindContext, 'trainingWaitMs' | 'progress'>;

/** A kind context for one run: the target, and reads shared among its resources. */
export function kindContext(client: ServiceClient, target: Target, run: RunSettings = {}): KindContext {
  const cache = new Map<string, Promise<unknown>>();
  return {
    client,
    ...target,
    ...run,
    memo: <T>(key: string, load: () => Promise<T>): Promise<T> => {
      let hit = cache.get(key) as Promise<T> | undefined;
      if (!hit) {
        hit = load();
        cache.set(key, hit);
      }
      return hit;
    },
  };
}
