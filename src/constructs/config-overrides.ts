import { FleetformError } from '../domain/errors';

/**
 * The escape hatch of a config document, as CDKTF's `addOverride`: a value set at a dotted
 * path (`network.sessions.heartbeat_window`, `components.0._comment`) after everything
 * typed is assembled, or removed with `undefined`. Whatever a config holds can be declared
 * this way, so no real config is unrepresentable.
 */
export interface ConfigOverride {
  readonly path: readonly string[];
  readonly value: unknown;
}

/** The steps of a dotted path; an empty step is refused. */
export function overridePath(path: string, where: string): string[] {
  const steps = path.split('.');
  if (path === '' || steps.some((s) => s === '')) {
    throw new FleetformError(`config override path ${JSON.stringify(path)} has an empty step`, {
      path: where,
      hint: 'write keys joined by dots, e.g. network.bind_address',
    });
  }
  return steps;
}

function isContainer(v: unknown): v is Record<string, unknown> | unknown[] {
  return v !== null && typeof v === 'object';
}

/** A copy of `doc` with every override applied in order (objects on the way are copied, never changed in place). */
export function withOverrides<T extends object>(doc: T, overrides: readonly ConfigOverride[]): T {
  if (overrides.length === 0) return doc;
  let out: Record<string, unknown> = { ...(doc as Record<string, unknown>) };
  for (const o of overrides) out = setAt(out, o.path, 0, o.value) as Record<string, unknown>;
  return out as T;
}

function setAt(container: unknown, path: readonly string[], at: number, value: unknown): unknown {
  const key = path[at] as string;
  const base: Record<string, unknown> | unknown[] = Array.isArray(container)
    ? [...container]
    : isContainer(container)
      ? { ...container }
      : {};
  const last = at === path.length - 1;
  if (Array.isArray(base)) {
    const index = Number(key);
    if (!Number.isInteger(index) || index < 0) return base;
    if (last) {
      if (value === undefined) base.splice(index, 1);
      else base[index] = value;
    } else base[index] = setAt(base[index], path, at + 1, value);
    return base;
  }
  if (last) {
    if (value === undefined) delete base[key];
    else base[key] = value;
  } else base[key] = setAt(base[key], path, at + 1, value);
  return base;
}
