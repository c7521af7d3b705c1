/**
 * What each managed machine runs once its fragments are resolved: its applied config (state)
 * resolved with the fragments it imports as the service holds them now, and which fragment
 * each module, component and service came from. Resolved by runsAs, as `plan --machine` does.
 */
import type { ServiceClient } from '../../api/client';
import type { NamedSection } from '../../domain/fragment-mods';
import { isObject, type JsonObject } from '../json';
import type { State } from '../state/schema';
import { errorMessage } from '../../domain/errors';
import { machineKind } from './machine';
import { entrySource } from './machine-fragments';
import { importsFragments, serviceFetch } from '../fragment-fetch';
import { runsAs } from './machine-resolved-diff';

/** The fragment an entry of a resolved config came from. */
export interface EntryFragment {
  readonly id: string;
  readonly name: string | undefined;
}

/** One entry (module, component, service) of what a machine runs, and the fragment it came from when it did. */
export interface RunEntry {
  readonly section: NamedSection;
  readonly name: string;
  /** The entry as the machine runs it (its config may hold secrets of a fragment: never show it whole). */
  readonly entry: JsonObject;
  readonly fragment?: EntryFragment;
}

/** What one machine runs: every entry of its resolved config, by section. */
export interface MachineRun {
  readonly stack: string;
  readonly address: string;
  readonly entries: readonly RunEntry[];
  /** Why its fragments could not be resolved (it is then what state holds, without them). */
  readonly error?: string;
}

/** The key of a machine in a `machineRuns` map. */
export const runKey = (stack: string, address: string): string => `${stack}\u0000${address}`;

const SECTIONS: readonly NamedSection[] = ['modules', 'components', 'services'];

function entriesOf(config: JsonObject, source: (section: NamedSection, name: string) => EntryFragment | undefined): RunEntry[] {
  const out: RunEntry[] = [];
  for (const section of SECTIONS) {
    const keyed = config[section];
    if (!isObject(keyed)) continue;
    for (const [key, entry] of Object.entries(keyed)) {
      if (!isObject(entry)) continue;
      const name = typeof entry.name === 'string' ? entry.name : key;
      const fragment = source(section, name);
      out.push({ section, name, entry, ...(fragment ? { fragment } : {}) });
    }
  }
  return out;
}

/** What a machine runs from its state entry alone (its imports left unresolved). */
function unresolved(stack: string, address: string, config: JsonObject, error?: string): MachineRun {
  return { stack, address, entries: entriesOf(config, () => undefined), ...(error ? { error } : {}) };
}

/**
 * What every machine of the states runs, each fragment at each version read once from the
 * service (a new call reads them anew). A machine whose fragments cannot be read runs, as
 * far as this says, what its state holds, with the reason.
 */
export async function machineRuns(client: ServiceClient, states: readonly State[]): Promise<Map<string, MachineRun>> {
  const read = new Map<string, Promise<unknown>>();
  const fetch = serviceFetch(client.appClient, <T>(key: string, load: () => Promise<T>): Promise<T> => {
    if (!read.has(key)) read.set(key, load());
    return read.get(key) as Promise<T>;
  });
  const out = new Map<string, MachineRun>();
  const jobs: Promise<void>[] = [];
  for (const state of states) {
    for (const [address, entry] of Object.entries(state.resources)) {
      const attributes = entry.attributes;
      if (entry.type !== machineKind.type || !isObject(attributes) || !isObject(attributes.config)) continue;
      const key = runKey(state.stack, address);
      const config = attributes.config;
      if (!importsFragments(config)) {
        out.set(key, unresolved(state.stack, address, config));
        continue;
      }
      const name = typeof attributes.name === 'string' ? attributes.name : address;
      jobs.push(
        runsAs(name, attributes, fetch).then(
          (runs) => {
            if (runs === undefined || runs === 'unknown') return void out.set(key, unresolved(state.stack, address, config));
            const resolution = runs.resolution;
            const source = (section: NamedSection, entryName: string): EntryFragment | undefined =>
              resolution ? entrySource(resolution, section, entryName) : undefined;
            out.set(key, { stack: state.stack, address, entries: entriesOf(runs.config, source) });
          },
          (err: unknown) => void out.set(key, unresolved(state.stack, address, config, errorMessage(err))),
        ),
      );
    }
  }
  await Promise.all(jobs);
  return out;
}
