/**
 * Bounds of a config value checked before anything walks it recursively: nesting depth,
 * number of values, length of strings and keys. A value beyond them is refused with one
 * clear issue instead of exhausting the stack or the memory of the process (a value that
 * contains itself ends at the depth limit).
 */
import { childPath, errorIssue, type Issue } from './issue';

export interface JsonLimits {
  /** Deepest nesting of objects and arrays. */
  readonly maxDepth: number;
  /** Values in the whole document (objects, arrays and scalars). */
  readonly maxValues: number;
  /** Characters of one string or key. */
  readonly maxStringLength: number;
}

export const DEFAULT_JSON_LIMITS: JsonLimits = {
  maxDepth: 64,
  maxValues: 500_000,
  maxStringLength: 1_000_000,
};

/** A value still to check, with its depth and where it sits (its path is built only for an issue). */
interface Pending {
  readonly value: unknown;
  readonly depth: number;
  readonly parent: Pending | undefined;
  readonly key: string | number | undefined;
}

/** Deepest limit for which withinLimits may recurse (it nests one call per level). */
const QUICK_DEPTH_MAX = 256;

/** What a walk of a value counts and finds, besides the verdict. */
interface Walk {
  values: number;
  /** Some string met so far contains `${` (a placeholder's or a template's start). */
  template: boolean;
}

/**
 * Whether `value` is within all limits, by a walk that allocates nothing: true exactly
 * when checkJsonLimits finds no issue (it visits the same values, only not in the same
 * order, and says nothing of which limit is exceeded where). It notes on the way whether
 * some string (keys aside) contains `${`.
 */
function withinLimits(v: unknown, depth: number, limits: JsonLimits, walk: Walk): boolean {
  walk.values += 1;
  if (walk.values > limits.maxValues) return false;
  if (typeof v === 'string') {
    if (!walk.template && v.includes('${')) walk.template = true;
    return v.length <= limits.maxStringLength;
  }
  if (v === null || typeof v !== 'object') return true;
  if (depth >= limits.maxDepth) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!withinLimits(v[i], depth + 1, limits, walk)) return false;
    return true;
  }
  for (const k in v) {
    if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
    if (k.length > limits.maxStringLength) return false;
    if (!withinLimits((v as Record<string, unknown>)[k], depth + 1, limits, walk)) return false;
  }
  return true;
}

/** What one walk of a value found (see scanJson). */
export interface JsonScan {
  /** checkJsonLimits finds no issue. */
  readonly withinLimits: boolean;
  /**
   * Some string in the value (at any depth, keys aside) may contain `${`: false says none
   * does, so the value holds neither a placeholder nor a template (nor a cdktf token).
   */
  readonly mayHoldTemplate: boolean;
}

/** A value beyond the limits, or too deep to walk here: nothing known of its strings. */
const UNSCANNED: JsonScan = { withinLimits: false, mayHoldTemplate: true };

/**
 * One walk of a value answering what a machine config's checks ask of all of it: whether
 * it is within the limits, and whether any string may hold a placeholder.
 */
export function scanJson(value: unknown, limits: JsonLimits = DEFAULT_JSON_LIMITS): JsonScan {
  if (limits.maxDepth > QUICK_DEPTH_MAX) return UNSCANNED;
  const walk: Walk = { values: 0, template: false };
  return withinLimits(value, 0, limits, walk) ? { withinLimits: true, mayHoldTemplate: walk.template } : UNSCANNED;
}

/** The first limit `value` exceeds, as an issue at its path; undefined when within all. */
export function checkJsonLimits(value: unknown, base = '', limits: JsonLimits = DEFAULT_JSON_LIMITS): Issue | undefined {
  // Nearly every value is within the limits: say so without building the walk below.
  if (scanJson(value, limits).withinLimits) return undefined;
  const stack: Pending[] = [{ value, depth: 0, parent: undefined, key: undefined }];
  const pathOf = (at: Pending): string => {
    const keys: (string | number)[] = [];
    for (let p: Pending | undefined = at; p !== undefined && p.key !== undefined; p = p.parent) keys.push(p.key);
    return keys.reduceRight<string>((path, k) => childPath(path, k), base);
  };
  let count = 0;
  while (stack.length > 0) {
    const pending = stack.pop() as Pending;
    const { value: v, depth } = pending;
    count += 1;
    if (count > limits.maxValues) {
      return errorIssue(
        'too-large',
        base,
        `the config holds more than ${limits.maxValues} values`,
        'split it across machines or fragments, or move bulk data out of attributes',
      );
    }
    if (typeof v === 'string') {
      if (v.length > limits.maxStringLength) {
        return errorIssue(
          'too-large',
          pathOf(pending),
          `a string of ${v.length} characters is longer than the limit of ${limits.maxStringLength}`,
          'keep large data out of the config (a file on the machine, or a dataset)',
        );
      }
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= limits.maxDepth) {
      return errorIssue(
        'too-deep',
        pathOf(pending),
        `nesting deeper than ${limits.maxDepth} levels`,
        `flatten the value; at most ${limits.maxDepth} levels of objects and arrays`,
      );
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], depth: depth + 1, parent: pending, key: i });
    } else {
      for (const k in v) {
        if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
        if (k.length > limits.maxStringLength) {
          return errorIssue(
            'too-large',
            pathOf(pending),
            `a key of ${k.length} characters is longer than the limit of ${limits.maxStringLength}`,
            'use short keys',
          );
        }
        stack.push({ value: (v as Record<string, unknown>)[k], depth: depth + 1, parent: pending, key: k });
      }
    }
  }
  return undefined;
}
