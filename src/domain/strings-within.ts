const hasOwn = Object.prototype.hasOwnProperty;

/** Levels walked by recursion before the walk goes on with a list of its own (a value nested deep cannot overflow the stack). */
const RECURSION_LEVELS = 64;

/**
 * Whether some string in a JSON value (at any depth of objects and arrays, keys aside)
 * contains `needle`.
 */
export function someStringIncludes(value: unknown, needle: string): boolean {
  return includesWithin(value, needle, 0);
}

/** someStringIncludes by recursion (nothing allocated), down to RECURSION_LEVELS. */
function includesWithin(v: unknown, needle: string, depth: number): boolean {
  if (typeof v === 'string') return v.includes(needle);
  if (v === null || typeof v !== 'object') return false;
  if (depth >= RECURSION_LEVELS) return includesWithinDeep(v, needle);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (includesWithin(v[i], needle, depth + 1)) return true;
    return false;
  }
  for (const key in v) if (hasOwn.call(v, key) && includesWithin((v as Record<string, unknown>)[key], needle, depth + 1)) return true;
  return false;
}

/** someStringIncludes with a list of the values still to look at: any depth. */
function includesWithinDeep(value: unknown, needle: string): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v === 'string') {
      if (v.includes(needle)) return true;
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) pending.push(v[i]);
    } else if (v !== null && typeof v === 'object') {
      for (const key in v) if (hasOwn.call(v, key)) pending.push((v as Record<string, unknown>)[key]);
    }
  }
  return false;
}
