/**
 * When a machine restarts a module: the module is in its config before and after, and the
 * version it runs moves (as the registry resolves both sides where it can tell, else as
 * written) or its environment changes. Other changes to the entry restart nothing.
 */
import { isObject, jsonEqual } from './json-value';

type JsonObject = Readonly<Record<string, unknown>>;

export interface ModuleRestart {
  /** The module's name in the config. */
  readonly name: string;
  /** Its registry id, when it has one. */
  readonly moduleId: string | undefined;
  /** Why it restarts, in words. */
  readonly why: string;
}

/**
 * The modules restarted going from `was` to `now` (module entries by name); `runningBefore`
 * and `runningAfter` are the versions each runs, by name, where the registry tells.
 */
export function moduleRestarts(was: JsonObject, now: JsonObject, runningBefore: JsonObject, runningAfter: JsonObject): ModuleRestart[] {
  const out: ModuleRestart[] = [];
  for (const [name, def] of Object.entries(now)) {
    const before = was[name];
    if (!isObject(before) || !isObject(def) || jsonEqual(before, def)) continue;
    const resolved = typeof runningBefore[name] === 'string' && typeof runningAfter[name] === 'string';
    const from = resolved ? runningBefore[name] : before.version;
    const to = resolved ? runningAfter[name] : def.version;
    const moves = from !== to;
    if (!moves && jsonEqual(before.env ?? null, def.env ?? null)) continue;
    const moduleId = typeof def.module_id === 'string' ? def.module_id : undefined;
    out.push({ name, moduleId, why: moves ? `it moves from ${String(from)} to ${String(to)}` : 'its environment changes' });
  }
  return out;
}
