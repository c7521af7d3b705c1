import type { DefaultFragmentImport } from '../../domain/organization-defaults';
import {
  unlessNotFound,
  type Dataset,
  type DataPipelineDetail,
  type FragmentInfo,
  type FragmentTagInfo,
  type MachinePart,
  type ServiceClient,
  type TrainingJob,
} from '../../api/client';
import type { LocationDetail } from '../../api/client/app-client';
import type { ModuleVersionStatus } from '../../api/client/types';
import { FleetformError } from '../../domain/errors';
import { isObject } from '../../domain/json-value';
import { mapLimited } from '../map-limited';

/** A machine as adoption reads it: where it lives and every part with its config. */
export interface InventoryMachine {
  readonly id: string;
  readonly name: string;
  readonly locationId: string;
  readonly parts: readonly MachinePart[];
}

/** A fragment the organization owns, at its latest revision, with its tags. */
export interface InventoryFragment {
  readonly fragment: FragmentInfo;
  readonly tags: readonly FragmentTagInfo[];
}

/** What an API key can see of one organization: the objects adoption turns into code. */
export interface Inventory {
  readonly organizationId: string;
  readonly locations: readonly LocationDetail[];
  readonly machines: readonly InventoryMachine[];
  /** The organization's own fragments; other organizations' public fragments its machines import are referred to by id. */
  readonly fragments: readonly InventoryFragment[];
  readonly datasets: readonly Dataset[];
  readonly jobs: readonly TrainingJob[];
  /** The organization's data pipelines (absent: not read). */
  readonly dataPipelines?: readonly DataPipelineDetail[];
  /** What the registry says of each version of the modules the machines' own configs name, by module id (absent: not read). */
  readonly moduleVersions?: ReadonlyMap<string, readonly ModuleVersionStatus[]>;
  /** The viam-server each part reports, by part id (a part that reports none, or none read, is unknown). */
  readonly viamServers?: ReadonlyMap<string, string>;
  /** The fragments every machine created in the organization starts with importing (unset: not read). */
  readonly defaultFragments?: readonly DefaultFragmentImport[];
}

export interface InventoryOptions {
  readonly organizationId: string;
  /** Only these locations and their machines; empty: every location of the organization. */
  readonly locationIds: readonly string[];
  readonly includeJobs: boolean;
  /** Reads in flight at once. */
  readonly concurrency: number;
  /** Called as machines are read: how many of how many. */
  readonly onProgress?: (done: number, total: number) => void;
}

/**
 * Reads the organization's locations, machines with their parts, fragments with their tags
 * (all of them, whatever `locationIds` says: a fragment belongs to no location), datasets,
 * data pipelines and (unless left out) training jobs. Read-only.
 */
export async function readInventory(client: ServiceClient, options: InventoryOptions): Promise<Inventory> {
  const { organizationId } = options;
  const allLocations = await client.appClient.listLocations(organizationId);
  const unknown = options.locationIds.filter((id) => !allLocations.some((l) => l.id === id));
  if (unknown.length > 0) {
    throw new FleetformError(`organization ${organizationId} has no location ${unknown.map((id) => JSON.stringify(id)).join(', ')}`, {
      path: '--location',
      hint: `its locations: ${allLocations.map((l) => `${l.name} (${l.id})`).join(', ') || '(none)'}`,
    });
  }
  const locations = options.locationIds.length === 0 ? allLocations : allLocations.filter((l) => options.locationIds.includes(l.id));
  const listed = (await mapLimited(locations, options.concurrency, (l) => client.appClient.listMachines(l.id))).flat();
  let done = 0;
  const machines = await mapLimited(listed, options.concurrency, async (m): Promise<InventoryMachine> => {
    const parts = await client.appClient.getMachineParts(m.id);
    options.onProgress?.(++done, listed.length);
    return { id: m.id, name: m.name, locationId: m.locationId, parts };
  });
  const owned = (await client.appClient.listFragments(organizationId)).filter((f) => f.organizationId === organizationId);
  // A fragment deleted since the list is not there to adopt.
  const details = await mapLimited(owned, options.concurrency, (f) => unlessNotFound(() => client.appClient.getFragment(f.id)));
  const fragments = details.flatMap((d): InventoryFragment[] => (d ? [{ fragment: d.fragment, tags: d.tags }] : []));
  const [datasets, jobs, dataPipelines] = await Promise.all([
    client.datasetClient.listDatasets(organizationId),
    options.includeJobs ? client.mlTrainingClient.listTrainingJobs(organizationId) : Promise.resolve([]),
    client.dataPipelinesClient.listDataPipelines(organizationId),
  ]);
  const moduleIds = [...new Set(machines.flatMap((m) => m.parts.flatMap((p) => moduleIdsOf(p.config))))];
  const items = await mapLimited(moduleIds, options.concurrency, (id) => unlessNotFound(() => client.appClient.getRegistryItem(id)));
  const moduleVersions = new Map(moduleIds.map((id, i) => [id, items[i]?.moduleVersions ?? []]));
  // Without the summaries a machine's viam-server is unknown, and a plan only warns of it.
  const viamServers = await client.appClient.viamServerVersions(organizationId).catch(() => new Map<string, string>());
  const { defaultFragments } = await client.appClient.getOrganization(organizationId);
  return { organizationId, locations, machines, fragments, datasets, jobs, dataPipelines, moduleVersions, viamServers, defaultFragments };
}

/** The module ids a config's own modules name. */
function moduleIdsOf(config: unknown): string[] {
  const modules = isObject(config) && Array.isArray(config.modules) ? (config.modules as unknown[]) : [];
  return modules.flatMap((m) => (isObject(m) && typeof m.module_id === 'string' && m.module_id !== '' ? [m.module_id] : []));
}
