/**
 * Machine configs resolved against the stored fragments (the domain's resolveMachineConfig
 * over a lookup into the store), the revision a machine runs, and who uses each fragment.
 */
import { MachineConfigSchema, type MachineConfig } from '../../domain/config';
import { resolveMachineConfig, type FragmentAtVersion, type FragmentLookup, type MachineResolution } from '../../domain/fragments';
import type { Db } from '../db/database';
import * as store from '../store/fragments';

/** viam.app.v1.FragmentVisibility numbers. */
export const FragmentVisibility = { UNSPECIFIED: 0, PRIVATE: 1, PUBLIC: 2, PUBLIC_UNLISTED: 3 } as const;

/** A revision as written on the wire: its number. */
const REVISION = /^[1-9]\d{0,15}$/;

/** Whether machines of `organizationId` may import the fragment: their own, or a public (listed or not) one. */
export function importable(f: store.FragmentRecord, organizationId: string): boolean {
  return (
    f.organizationId === organizationId || f.visibility === FragmentVisibility.PUBLIC || f.visibility === FragmentVisibility.PUBLIC_UNLISTED
  );
}

/** The revision number a version names: a revision number, a tag, or (none) the latest. */
export function revisionOf(db: Db, f: store.FragmentRecord, version: string | undefined): number | undefined {
  if (version === undefined || version === '') return f.latestRevision;
  if (REVISION.test(version)) {
    const n = Number(version);
    return n <= f.latestRevision ? n : undefined;
  }
  return store.listTags(db, f.id).find((t) => t.tag === version)?.revision;
}

/** Fragments as machines of `organizationId` see them, each revision read and parsed once. */
export function storeLookup(db: Db, organizationId: string): FragmentLookup {
  const parsed = new Map<string, FragmentAtVersion>();
  return (id, version) => {
    const f = store.getFragment(db, id);
    if (!f || !importable(f, organizationId)) return 'unknown-fragment';
    const n = revisionOf(db, f, version);
    if (n === undefined) return 'unknown-version';
    const key = `${id}\u0000${n}`;
    let found = parsed.get(key);
    if (!found) {
      const r = store.getRevision(db, id, n);
      if (!r) return 'unknown-version';
      found = { id, name: f.name, revision: String(n), config: JSON.parse(r.config) as Record<string, unknown> };
      parsed.set(key, found);
    }
    return found;
  };
}

/** A part's stored config resolved: what its machine runs. */
export function resolvePart(
  db: Db,
  part: { readonly id: string; readonly organizationId: string; readonly config: string },
  lookup: FragmentLookup = storeLookup(db, part.organizationId),
): MachineResolution {
  return resolveMachineConfig({ machine: part.id, config: JSON.parse(part.config) as Record<string, unknown>, fragments: lookup });
}

/**
 * The config revision a machine runs: the time of its part's last config write (RFC 3339),
 * then ` +<fragment id>@<revision>` for every fragment its config reaches, in the order met,
 * so a new revision of a fragment (or a tag moved) is a new revision of the machine's config.
 */
export function machineRevision(lastUpdated: number, resolution: MachineResolution | undefined): string {
  const time = new Date(lastUpdated).toISOString();
  const reached = (resolution?.imports ?? []).filter((i) => i.revision !== undefined && !i.disabled);
  return reached.length === 0 ? time : `${time} ${reached.map((i) => `+${i.id}@${i.revision}`).join(' ')}`;
}

/** Who uses a fragment at one version (a revision, a tag, or '' for the latest). */
export interface VersionUse {
  readonly robots: Set<string>;
  readonly organizations: Set<string>;
  /** Robots of the fragment's own organization. */
  readonly robotsInOwnOrg: Set<string>;
}

/**
 * Every fragment's users, by fragment id then the version the import names: a machine uses
 * each fragment its config reaches (nested ones too), disabled imports included.
 */
export function fragmentUsage(db: Db): Map<string, Map<string, VersionUse>> {
  // Worked out again only after a write: any row the connection changed may change it.
  const changes = rowsChanged(db);
  const cached = usageCache.get(db);
  if (cached && cached.changes === changes && !db.inTransaction) return cached.usage;
  const usage = usageOfEveryFragment(db);
  if (!db.inTransaction) usageCache.set(db, { changes, usage });
  return usage;
}

/** The last usage worked out on each database, with the rows its connection had changed then (treat as read-only). */
const usageCache = new WeakMap<Db, { readonly changes: number; readonly usage: Map<string, Map<string, VersionUse>> }>();

/** How many rows the connection has inserted, updated or deleted since it was opened. */
function rowsChanged(db: Db): number {
  return (db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
}

function usageOfEveryFragment(db: Db): Map<string, Map<string, VersionUse>> {
  const usage = new Map<string, Map<string, VersionUse>>();
  const owners = new Map(store.listFragments(db, undefined).map((f) => [f.id, f.organizationId]));
  const lookups = new Map<string, FragmentLookup>();
  for (const part of store.partsWithFragments(db)) {
    let lookup = lookups.get(part.organizationId);
    if (!lookup) lookups.set(part.organizationId, (lookup = storeLookup(db, part.organizationId)));
    const resolution = resolvePart(db, { id: part.partId, organizationId: part.organizationId, config: part.config }, lookup);
    for (const i of resolution.imports) {
      if (i.revision === undefined) continue;
      let byVersion = usage.get(i.id);
      if (!byVersion) usage.set(i.id, (byVersion = new Map()));
      const key = i.version ?? '';
      let use = byVersion.get(key);
      if (!use) byVersion.set(key, (use = { robots: new Set(), organizations: new Set(), robotsInOwnOrg: new Set() }));
      use.robots.add(part.robotId);
      use.organizations.add(part.organizationId);
      if (owners.get(i.id) === part.organizationId) use.robotsInOwnOrg.add(part.robotId);
    }
  }
  return usage;
}

/** One fragment's users over every version. */
export function totalUse(byVersion: Map<string, VersionUse> | undefined): VersionUse {
  const total: VersionUse = { robots: new Set(), organizations: new Set(), robotsInOwnOrg: new Set() };
  for (const use of byVersion?.values() ?? []) {
    for (const r of use.robots) total.robots.add(r);
    for (const o of use.organizations) total.organizations.add(o);
    for (const r of use.robotsInOwnOrg) total.robotsInOwnOrg.add(r);
  }
  return total;
}

/**
 * The config whose modules a part deploys: its own when it imports no fragment, else its
 * resolved config (its own again when the resolved one is not a machine config).
 */
export function resolvedModules(
  db: Db,
  part: { readonly id: string; readonly organizationId: string },
  json: unknown,
  own: MachineConfig,
): MachineConfig {
  if (json === null || typeof json !== 'object' || !('fragments' in json)) return own;
  const resolution = resolveMachineConfig({
    machine: part.id,
    config: json as Record<string, unknown>,
    fragments: storeLookup(db, part.organizationId),
  });
  const parsed = MachineConfigSchema.safeParse(resolution.config);
  return parsed.success ? parsed.data : own;
}

/**
 * What a config write is validated as: a config importing fragments as its machine will run
 * it (resolved; entries named by their resolved names), any other config as written.
 */
export function configToCheck(db: Db, part: { readonly id: string; readonly organizationId: string } | undefined, json: unknown): unknown {
  if (part === undefined || json === null || typeof json !== 'object' || !('fragments' in json)) return json;
  return resolveMachineConfig({
    machine: part.id,
    config: json as Record<string, unknown>,
    fragments: storeLookup(db, part.organizationId),
  }).config;
}
