/**
 * Reading the fragments a config reaches from the service, and a part's config as its
 * machine runs it: the config resolved (the domain's resolveMachineConfig) against those
 * fragments, each read once per fetch. The resolver looks fragments up synchronously, so
 * the imports it meets are read in rounds until none is missing.
 */
import type { FragmentClient } from '../api/client';
import { ServiceError } from '../api/client/errors';
import { decodeStruct } from '../api/struct-codec';
import {
  FRAGMENT_NESTING_LIMIT,
  leavesImportOut,
  resolveMachineConfig,
  type FragmentAtVersion,
  type MachineResolution,
} from '../domain/fragments';
import { isObject } from './json';

/** A fragment at a version, or why there is none. */
export type FetchedFragment = FragmentAtVersion | 'unknown-fragment' | 'unknown-version';

/**
 * Reads one fragment at one version (a revision, a tag, or undefined: the latest). A fetch
 * stands for one moment of the service: resolveFetching keeps what it read for every
 * machine it resolves with the same fetch, so make a new one to read anew.
 */
export type FragmentFetch = (id: string, version: string | undefined) => Promise<FetchedFragment>;

const key = (id: string, version: string | undefined): string => `${id}\u0000${version ?? ''}`;

/** Whether a config imports any fragment. */
export function importsFragments(config: Readonly<Record<string, unknown>>): boolean {
  return Array.isArray(config.fragments) && config.fragments.length > 0;
}

/**
 * What each fetch has read, by fragment and version, once read: shared by every machine
 * resolved with that fetch, so a fleet importing a few fragments resolves each machine
 * once (the rounds are for fragments no machine has read yet).
 */
const readBy = new WeakMap<FragmentFetch, Map<string, FetchedFragment>>();

/** The machine's config resolved, reading the fragments it reaches through `fetch`. */
export async function resolveFetching(
  machine: string,
  config: Readonly<Record<string, unknown>>,
  fetch: FragmentFetch,
): Promise<MachineResolution> {
  let found = readBy.get(fetch);
  if (found === undefined) readBy.set(fetch, (found = new Map()));
  const known = found;
  // Each round reads the imports the previous one met: one more level of nesting per round.
  for (let round = 0; ; round++) {
    const missing = new Map<string, { id: string; version: string | undefined }>();
    const resolution = resolveMachineConfig({
      machine,
      config,
      fragments: (id, version) => {
        const fragment = known.get(key(id, version));
        if (fragment !== undefined) return fragment;
        missing.set(key(id, version), { id, version });
        return 'unknown-fragment';
      },
    });
    if (missing.size === 0 || round > FRAGMENT_NESTING_LIMIT + 1) return resolution;
    await Promise.all([...missing].map(async ([k, m]) => known.set(k, await fetch(m.id, m.version))));
  }
}

/** Reads fragments from the service: NOT_FOUND or no access is an unknown fragment, or version when the fragment exists. */
export function serviceFetch(client: FragmentClient, once: <T>(key: string, load: () => Promise<T>) => Promise<T>): FragmentFetch {
  const exists = (id: string): Promise<boolean> =>
    once(`fragment-exists:${id}`, async () => {
      try {
        await client.getFragment(id);
        return true;
      } catch (err) {
        if (err instanceof ServiceError && (err.code === 'NOT_FOUND' || err.code === 'PERMISSION_DENIED')) return false;
        throw err;
      }
    });
  return (id, version) =>
    once(`fragment-at:${key(id, version)}`, async (): Promise<FetchedFragment> => {
      try {
        const { fragment } = await client.getFragment(id, version);
        return { id, name: fragment.name, revision: fragment.revision, config: fragment.config };
      } catch (err) {
        if (
          !(err instanceof ServiceError) ||
          (err.code !== 'NOT_FOUND' && err.code !== 'PERMISSION_DENIED' && err.code !== 'INVALID_ARGUMENT')
        )
          throw err;
        return version !== undefined && version !== '' && (await exists(id)) ? 'unknown-version' : 'unknown-fragment';
      }
    });
}

/** A fetch over the service that reads each fragment (and each version of one) once for as long as it is kept. */
export function cachedServiceFetch(client: FragmentClient): FragmentFetch {
  const reads = new Map<string, Promise<unknown>>();
  return serviceFetch(client, <T>(key: string, load: () => Promise<T>): Promise<T> => {
    if (!reads.has(key)) reads.set(key, load());
    return reads.get(key) as Promise<T>;
  });
}

/** The time part of a config revision (the part's last write, before the fragments it reaches). */
export const revisionTime = (revision: string): string => revision.split(' ')[0] ?? '';

/** A part's config as read: its JSON text, else its Struct. */
export function partConfig(json: string, struct: Uint8Array | undefined): unknown {
  if (json) return JSON.parse(json) as unknown;
  return struct === undefined ? undefined : decodeStruct(struct);
}

/**
 * The revision of a part's latest config as its machine runs it: the time of its last
 * write, then ` +<fragment id>@<revision>` for each fragment its config reaches (in the
 * order the resolution meets them, disabled imports and unknown ones left out), so a new
 * revision of a fragment, or a tag moved, is a new config revision.
 */
export async function configRevision(time: string, config: unknown, partId: string, fetch: FragmentFetch): Promise<string> {
  return (await latestConfigReading(time, config, partId, fetch)).revision;
}

/** A part's latest config as its machine runs it: its revision (see configRevision) and the fragment error of each import it runs without. */
export interface LatestConfigReading {
  readonly revision: string;
  /** `fragments[0]: there is no fragment ...`: the imports left out (see leavesImportOut), as the service reports them on the machine. */
  readonly fragmentErrors: readonly string[];
}

/** What configRevision reads, with the fragment error of each import the machine runs without. */
export async function latestConfigReading(
  time: string,
  config: unknown,
  partId: string,
  fetch: FragmentFetch,
): Promise<LatestConfigReading> {
  if (!isObject(config) || !importsFragments(config)) return { revision: time, fragmentErrors: [] };
  const resolution = await resolveFetching(partId, config, fetch);
  const reached = resolution.imports.filter((i) => i.revision !== undefined && !i.disabled);
  return {
    revision: reached.length === 0 ? time : `${time} ${reached.map((i) => `+${i.id}@${i.revision}`).join(' ')}`,
    fragmentErrors: resolution.errors.filter(leavesImportOut).map((e) => `${e.field}: ${e.detail}`),
  };
}
