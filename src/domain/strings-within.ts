/**
 * Whether some string in a JSON value (at any depth of objects and arrays, keys aside)
 * contains `needle`. Iterative: a value nested deep cannot overflow the stack.
 */
export function someStringIncludes(value: unknown, needle: string): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v === 'string') {
      if (v.includes(needle)) return true;
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) pending.push(v[i]);
    } else if (v !== null && typeof v === 'object') {
      for (const key in v) if (Object.prototype.hasOwnProperty.call(v, key)) pending.push((v as Record<string, unknown>)[key]);
    }
  }
  return false;
}
