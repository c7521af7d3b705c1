/**
 * Names of the locations machines are in that no stack manages, read from the service: each
 * once, then again when older than `maxAgeMs` (a location renamed on the service shows its
 * new name within that). A location that cannot be read is asked again at the next reading.
 */
export type LocationNames = (ids: readonly string[]) => Promise<Map<string, string>>;

export function locationNames(read: (id: string) => Promise<string>, maxAgeMs = 300_000, now: () => number = Date.now): LocationNames {
  const known = new Map<string, { readonly name: string; readonly at: number }>();
  return async (ids) => {
    const stale = ids.filter((id) => {
      const k = known.get(id);
      return k === undefined || now() - k.at > maxAgeMs;
    });
    await Promise.all(
      stale.map(async (id) => {
        const name = await read(id).catch(() => undefined);
        if (name) known.set(id, { name, at: now() });
      }),
    );
    const out = new Map<string, string>();
    for (const id of ids) {
      const name = known.get(id)?.name;
      if (name) out.set(id, name);
    }
    return out;
  };
}
