/**
 * Module hot reload: the developer reloading a module writes `reload_*` keys on its entry and
 * sets its version to `latest-with-prerelease`. Those keys are the developer's: a config
 * written from code keeps the stored ones code does not declare. While `reload_enabled` is
 * true on the service and code does not declare it, the stored version stays too; once the
 * developer clears it, the version code declares wins again.
 */

/** The keys a hot reload writes on a module entry. */
export const RELOAD_KEYS = ['reload_enabled', 'reload_path', 'reload_user', 'reload_time', 'reload_annotation'] as const;

/** The version a hot reload sets on its module. */
export const RELOAD_VERSION = 'latest-with-prerelease';

/** A reload in place on a module entry the service holds, kept by the write. */
export interface HeldReload {
  readonly module: string;
  readonly user: string | undefined;
  readonly time: string | undefined;
  /** The version kept for the reload; undefined when code's version is written. */
  readonly keptVersion: string | undefined;
}

type Entry = Readonly<Record<string, unknown>>;

const isEntry = (x: unknown): x is Entry => typeof x === 'object' && x !== null && !Array.isArray(x);
const textOf = (x: unknown): string | undefined => (typeof x === 'string' && x !== '' ? x : undefined);

/** The stored module entries by name (the first of each name). */
function storedByName(stored: unknown): Map<string, Entry> {
  const byName = new Map<string, Entry>();
  if (!Array.isArray(stored)) return byName;
  for (const raw of stored) if (isEntry(raw) && typeof raw.name === 'string' && !byName.has(raw.name)) byName.set(raw.name, raw);
  return byName;
}

/** One module entry with the stored reload keys code does not declare, and the reload it keeps (if any). */
function withHeldReload(entry: Entry, stored: Entry | undefined): { entry: Entry; held?: HeldReload } {
  if (stored === undefined) return { entry };
  const held = RELOAD_KEYS.filter((k) => stored[k] !== undefined && entry[k] === undefined);
  if (held.length === 0) return { entry };
  const out: Record<string, unknown> = { ...entry };
  for (const k of held) out[k] = stored[k];
  const reloading = out.reload_enabled === true && held.includes('reload_enabled');
  const keptVersion = reloading && stored.version === RELOAD_VERSION ? RELOAD_VERSION : undefined;
  if (keptVersion !== undefined) out.version = keptVersion;
  if (!reloading) return { entry: out };
  const name = typeof entry.name === 'string' ? entry.name : '';
  return { entry: out, held: { module: name, user: textOf(stored.reload_user), time: textOf(stored.reload_time), keptVersion } };
}

/**
 * The modules code declares with the reload keys the service holds on the same-named
 * stored entries and code does not declare, and the reloads in place so kept.
 */
export function withHeldReloads(modules: readonly unknown[], stored: unknown): { modules: unknown[]; held: HeldReload[] } {
  const byName = storedByName(stored);
  const held: HeldReload[] = [];
  const out = modules.map((m) => {
    if (!isEntry(m) || typeof m.name !== 'string') return m;
    const kept = withHeldReload(m, byName.get(m.name));
    if (kept.held) held.push(kept.held);
    return kept.entry;
  });
  return { modules: out, held };
}

/** The line a plan says of a reload in place. */
export function heldReloadMessage(r: HeldReload): string {
  const by = r.user === undefined ? '' : ` by ${r.user}`;
  const at = r.time === undefined ? '' : ` at ${r.time}`;
  const version = r.keptVersion === undefined ? '' : ` (version ${r.keptVersion})`;
  return `a hot reload${by}${at} is in place${version}; left as it is`;
}

/** The stored module entries holding a reload key (undefined when none does): all a later write needs of them. */
export function reloadingEntries(stored: unknown): Record<string, unknown>[] | undefined {
  if (!Array.isArray(stored)) return undefined;
  const found = stored.filter((m): m is Entry => isEntry(m) && RELOAD_KEYS.some((k) => m[k] !== undefined));
  return found.length > 0 ? found : undefined;
}
