/**
 * A part's config as its simulated machine reads it: each section on its own, so that one
 * malformed entry drops that entry (as the machine server drops what it cannot convert),
 * never the whole config.
 */
import { JobSchema, MaintenanceSchema, RemoteSchema, remoteNamePrefix } from '../../domain/config-language';
import { ModuleConfigSchema, moduleTypeOf, RESOURCE_LISTS, type ResourceListName } from '../../domain/config';
import { PackageConfigSchema, type PackageConfig } from '../../domain/packages';
import type { z } from 'zod';
import type { FetchedJob } from './jobs';
import type { MaintenanceSettings } from './maintenance';
import { isObject as isRecord } from '../../domain/json-value';

export interface MachineConfigRead {
  readonly modules: readonly { readonly name: string; readonly moduleId: string | undefined; readonly policy: string }[];
  readonly resources: readonly { readonly kind: ResourceListName; readonly entry: Readonly<Record<string, unknown>> }[];
  readonly packages: readonly PackageConfig[];
  readonly remotes: readonly { readonly name: string; readonly address: string; readonly prefix: string }[];
  readonly jobs: readonly FetchedJob[];
  readonly processes: number;
  readonly maintenance?: MaintenanceSettings;
}

/** The entries of a list section that its schema takes. */
function entries<S extends z.ZodType>(config: Readonly<Record<string, unknown>>, key: string, schema: S): z.infer<S>[] {
  const list = config[key];
  if (!Array.isArray(list)) return [];
  return list.flatMap((e) => {
    const parsed = schema.safeParse(e);
    return parsed.success ? [parsed.data as z.infer<S>] : [];
  });
}

/** What the machine runs of a config (fragments already resolved). */
export function readMachineConfig(raw: unknown): MachineConfigRead {
  const config: Readonly<Record<string, unknown>> = isRecord(raw) ? raw : {};
  const maintenance = MaintenanceSchema.safeParse(config.maintenance);
  const sensorName = maintenance.success ? (maintenance.data.sensor_name ?? '') : '';
  return {
    modules: entries(config, 'modules', ModuleConfigSchema).map((m) => ({
      name: m.name,
      moduleId: moduleTypeOf(m) === 'registry' ? (m.module_id ?? '') : undefined,
      policy: m.version ?? '',
    })),
    resources: RESOURCE_LISTS.flatMap((kind) => {
      const list = config[kind];
      // A disabled entry is kept in the config but never built.
      return Array.isArray(list) ? list.filter((e) => isRecord(e) && e.disabled !== true).map((entry) => ({ kind, entry })) : [];
    }),
    packages: entries(config, 'packages', PackageConfigSchema),
    remotes: entries(config, 'remotes', RemoteSchema).map((r) => ({
      name: r.name,
      address: r.address ?? '',
      prefix: remoteNamePrefix(r.name, r.prefix),
    })),
    jobs: entries(config, 'jobs', JobSchema).map((j) => ({
      name: j.name ?? '',
      schedule: j.schedule ?? '',
      resource: j.resource ?? '',
      method: j.method ?? '',
    })),
    processes: Array.isArray(config.processes) ? config.processes.length : 0,
    ...(sensorName === ''
      ? {}
      : { maintenance: { sensorName, key: maintenance.success ? (maintenance.data.maintenance_allowed_key ?? '') : '' } }),
  };
}
