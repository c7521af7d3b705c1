import type { ServiceClient } from '../../api/client';
import { formatVersionPolicy, newestVersion, policyAdmits, resolveModuleVersion, tryParseVersionPolicy } from '../../domain';
import { isObject } from '../json';
import type { State } from '../state/schema';
import { machineKind } from './machine';

/** The module card of one machine module: what the web app shows, computed from the registry. */
export interface ModuleCard {
  readonly stack: string;
  readonly machine: string;
  readonly module: string;
  readonly moduleId: string;
  readonly policy: string;
  /** The version the policy resolves to now (what the machine runs once it syncs). */
  readonly running: string | undefined;
  readonly latest: string | undefined;
  /** Whether the policy admits the registry's latest version. */
  readonly admitsLatest: boolean;
}

/** Module cards of every registry module of every machine in the given states. */
export async function moduleCards(client: ServiceClient, states: readonly State[]): Promise<ModuleCard[]> {
  const registry = new Map<string, Promise<string[]>>();
  const versionsOf = (id: string): Promise<string[]> => {
    let v = registry.get(id);
    if (!v) {
      v = client.appClient.getModule(id).then((m) => m.versions.map((x) => x.version), () => []);
      registry.set(id, v);
    }
    return v;
  };
  const cards: ModuleCard[] = [];
  for (const state of states) {
    for (const [address, entry] of Object.entries(state.resources)) {
      if (entry.type !== machineKind.type || !isObject(entry.attributes) || !isObject(entry.attributes.config)) continue;
      const modules = entry.attributes.config.modules;
      if (!isObject(modules)) continue;
      for (const [name, m] of Object.entries(modules)) {
        if (!isObject(m) || m.type === 'local' || typeof m.module_id !== 'string' || typeof m.version !== 'string') continue;
        const policy = tryParseVersionPolicy(m.version);
        const versions = await versionsOf(m.module_id);
        const latest = newestVersion(versions, { includePrerelease: policy?.kind === 'latest-with-prerelease' });
        cards.push({
          stack: state.stack,
          machine: String(entry.attributes.name ?? address),
          module: name,
          moduleId: m.module_id,
          policy: policy ? formatVersionPolicy(policy) : m.version,
          running: policy ? resolveModuleVersion(policy, versions)?.version : undefined,
          latest,
          admitsLatest: Boolean(policy && latest && policyAdmits(policy, latest)),
        });
      }
    }
  }
  return cards;
}
