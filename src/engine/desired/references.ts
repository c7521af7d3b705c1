import { isObject, UNKNOWN, type JsonValue } from '../json';

/** `${fleetform_dataset.boxes.id}`: a reference to another resource's output. */
const REFERENCE = /(\$?)\$\{(fleetform_[a-z_]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_]+)\}/g;

export interface Reference {
  readonly address: string;
  readonly output: string;
}

/** Every resource reference inside a value, at any depth. `$${...}` is an escaped literal. */
export function findReferences(value: JsonValue): Reference[] {
  const found: Reference[] = [];
  const visit = (v: JsonValue): void => {
    if (typeof v === 'string') {
      for (const m of v.matchAll(REFERENCE)) {
        if (m[1] !== '$') found.push({ address: `${m[2]}.${m[3]}`, output: m[4] as string });
      }
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (isObject(v)) Object.values(v).forEach(visit);
  };
  visit(value);
  return found;
}

/**
 * Replaces references with the outputs they point at, and `$${` escapes with `${`.
 * A reference whose value is not known yet makes the whole string UNKNOWN.
 */
export function resolveReferences(
  value: JsonValue,
  lookup: (ref: Reference) => string | undefined,
): JsonValue {
  if (typeof value === 'string') {
    if (!value.includes('${')) return value;
    let unknown = false;
    const replaced = value.replace(REFERENCE, (whole, escape: string, type: string, name: string, output: string) => {
      if (escape === '$') return whole.slice(1);
      const resolved = lookup({ address: `${type}.${name}`, output });
      if (resolved === undefined) unknown = true;
      return resolved ?? '';
    });
    return unknown ? UNKNOWN : replaced.replace(/\$\$\{/g, '${');
  }
  if (Array.isArray(value)) return value.map((v) => resolveReferences(v, lookup));
  if (isObject(value)) {
    const out: { [k: string]: JsonValue } = {};
    for (const [k, v] of Object.entries(value)) out[k] = resolveReferences(v, lookup);
    return out;
  }
  return value;
}
