import type { ServiceClient } from '../../api/client';
import { isNotFound } from '../../api/client/errors';
import { FleetformError, errorMessage } from '../../domain/errors';
import { formatVersionPolicy, newestVersion, policyAdmits, tryParseVersionPolicy } from '../../domain';
import { isObject } from '../json';
import type { State } from '../state/schema';
import { machineKind, runningModuleVersion } from './machine';
import { runKey, type EntryFragment, type MachineRun } from './machine-runs';

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
  /** Why the registry could not be read for this module: running, latest and admitsLatest are then unknown. */
  readonly registryError?: FleetformError;
  /** The fragment the machine runs it from, when it comes from one. */
  readonly fragment?: EntryFragment;
}

/** The registry's versions of a module, or the reason they could not be read. */
type RegistryRead = { readonly versions: string[] } | { readonly error: FleetformError };

function readFailure(moduleId: string, err: unknown): FleetformError {
  const reason = errorMessage(err);
  return new FleetformError(`the registry could not be read for module ${moduleId}: ${reason}`, {
    path: moduleId,
    hint: isNotFound(err)
      ? 'the module is no longer in the registry: check module_id'
      : 'check the connection and the API key, then run status again',
  });
}

/** A machine's modules by name: those it runs (`runs`, its fragments resolved) when known, else those of its state entry. */
function modulesOf(
  config: Record<string, unknown>,
  run: MachineRun | undefined,
): Array<{ name: string; module: Record<string, unknown>; fragment?: EntryFragment }> {
  if (run)
    return run.entries
      .filter((e) => e.section === 'modules')
      .map((e) => ({ name: e.name, module: e.entry, ...(e.fragment ? { fragment: e.fragment } : {}) }));
  const modules = config.modules;
  if (!isObject(modules)) return [];
  return Object.entries(modules).flatMap(([name, m]) => (isObject(m) ? [{ name, module: m }] : []));
}

/**
 * Module cards of every registry module of every machine in the given states: with `runs`
 * (see machineRuns), of every module each machine runs, those of its fragments included.
 */
export async function moduleCards(
  client: ServiceClient,
  states: readonly State[],
  runs?: ReadonlyMap<string, MachineRun>,
): Promise<ModuleCard[]> {
  const registry = new Map<string, Promise<RegistryRead>>();
  const versionsOf = (id: string): Promise<RegistryRead> => {
    let v = registry.get(id);
    if (!v) {
      v = client.appClient.getModule(id).then(
        (m) => ({ versions: m.versions.map((x) => x.version) }),
        (err: unknown) => ({ error: readFailure(id, err) }),
      );
      registry.set(id, v);
    }
    return v;
  };
  const cards: ModuleCard[] = [];
  for (const state of states) {
    for (const [address, entry] of Object.entries(state.resources)) {
      if (entry.type !== machineKind.type || !isObject(entry.attributes) || !isObject(entry.attributes.config)) continue;
      for (const { name, module: m, fragment } of modulesOf(entry.attributes.config, runs?.get(runKey(state.stack, address)))) {
        if (m.type === 'local' || typeof m.module_id !== 'string' || typeof m.version !== 'string') continue;
        const policy = tryParseVersionPolicy(m.version);
        const read = await versionsOf(m.module_id);
        const card = {
          stack: state.stack,
          machine: String(entry.attributes.name ?? address),
          module: name,
          moduleId: m.module_id,
          policy: policy ? formatVersionPolicy(policy) : m.version,
          ...(fragment ? { fragment } : {}),
        };
        if ('error' in read) {
          cards.push({
            ...card,
            running: undefined,
            latest: undefined,
            admitsLatest: false,
            registryError: read.error,
          });
          continue;
        }
        const { versions } = read;
        const latest = newestVersion(versions, { includePrerelease: policy?.kind === 'latest-with-prerelease' });
        cards.push({
          ...card,
          running: runningModuleVersion({ name, version: m.version }, entry, versions),
          latest,
          admitsLatest: Boolean(policy && latest && policyAdmits(policy, latest)),
        });
      }
    }
  }
  return cards;
}
