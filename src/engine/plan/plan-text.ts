import { isSensitiveDigest, isUnknown, SensitiveDigest, unknownValue } from '../json';

/**
 * A plan as text and back, its typed values kept: an unknown value and a secret's digest
 * are written as objects tagged `$fleetform`, and an object of the plan's own data that
 * has that key is written tagged too (as its entries), so reading never takes data for a
 * typed value nor a typed value for data.
 */
const TAG = '$fleetform';

type Tagged =
  | { readonly [TAG]: 'unknown' }
  | { readonly [TAG]: 'sensitive'; readonly algorithm: 'hmac-sha256' | 'sha256'; readonly hex: string }
  | { readonly [TAG]: 'object'; readonly entries: ReadonlyArray<readonly [string, unknown]> };

function tagged(raw: unknown, value: unknown): unknown {
  if (isUnknown(raw)) return { [TAG]: 'unknown' } satisfies Tagged;
  if (isSensitiveDigest(raw)) return { [TAG]: 'sensitive', algorithm: raw.algorithm, hex: raw.hex } satisfies Tagged;
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.prototype.hasOwnProperty.call(value, TAG)) {
    return { [TAG]: 'object', entries: Object.entries(value) } satisfies Tagged;
  }
  return value;
}

/** `value` as JSON text with its unknowns and digests tagged. */
export function planValuesText(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
    return tagged(this[key], v);
  });
}

function untagged(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.prototype.hasOwnProperty.call(value, TAG))
    return value;
  const t = value as Tagged;
  if (t[TAG] === 'unknown') return unknownValue;
  if (t[TAG] === 'sensitive') return SensitiveDigest.of(t.algorithm, t.hex);
  if (t[TAG] === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of t.entries) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}

/** Reads text `planValuesText` wrote: its tagged values typed again. Throws SyntaxError when it is not JSON. */
export function readPlanValuesText(text: string): unknown {
  return JSON.parse(text, (_key, v: unknown) => untagged(v));
}
