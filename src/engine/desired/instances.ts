import { FleetformError } from '../../domain/errors';
import { TEMPLATE_PART } from '../../domain/terraform-expressions';
import { isObject, setOwn, type JsonObject, type JsonValue } from '../json';
import { unwrapExpression } from './lifecycle';

/** One instance of a resource block: its key (none without count or for_each) and its block with `count.*` / `each.*` resolved. */
export interface ResourceInstance {
  /** `""`, `[0]` or `["key"]`: what follows the resource name in its address. */
  readonly suffix: string;
  /** The block without count and for_each. */
  readonly body: JsonObject;
}

/** What `each.*` and `count.*` stand for in one instance. */
type Iteration =
  { readonly kind: 'count'; readonly index: number } | { readonly kind: 'each'; readonly key: string; readonly value: JsonValue };

function refuse(at: string, message: string, hint: string): never {
  throw new FleetformError(message, { path: at, hint });
}

/** The keys and values a literal `for_each` walks: a map, a list of strings, or cdktf's `toset([...])` of literals. */
function forEachEntries(value: JsonValue, at: string): Array<[string, JsonValue]> {
  let collection: JsonValue = value;
  if (typeof value === 'string') {
    const inner = /^toset\((\[.*\])\)$/s.exec(unwrapExpression(value))?.[1];
    let parsed: JsonValue | undefined;
    try {
      parsed = inner === undefined ? undefined : (JSON.parse(inner) as JsonValue);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined) {
      return refuse(
        at,
        `for_each ${JSON.stringify(value)} is an expression fleetform's engine does not evaluate`,
        'iterate over a literal list or map (TerraformIterator.fromList / fromMap of plain values), or deploy with `cdktf deploy`',
      );
    }
    collection = parsed;
  }
  if (Array.isArray(collection)) {
    const keys = collection.map((item, i) =>
      typeof item === 'string' ? item : refuse(`${at}[${i}]`, 'a for_each set holds strings only', 'use a map to iterate over objects'),
    );
    return [...new Set(keys)].sort().map((k) => [k, k]);
  }
  if (isObject(collection))
    return Object.keys(collection)
      .sort()
      .map((k) => [k, collection[k] as JsonValue]);
  return refuse(at, 'for_each takes a map or a set of strings', 'iterate over a literal list or map');
}

function countOf(value: JsonValue, at: string): number {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n === 'number' && Number.isInteger(n) && n >= 0) return n;
  return refuse(
    at,
    `count ${JSON.stringify(value)} is not a whole number fleetform's engine can read`,
    'write a literal count (TerraformCount.of(3)), or deploy with `cdktf deploy`',
  );
}

/** `each.value`, `each.value.a`, `each.value["a"]` -> the value they name within the iteration. */
function eachValueAt(value: JsonValue, path: string, at: string): JsonValue {
  let current = value;
  const steps = [...path.matchAll(/\.([A-Za-z0-9_-]+)|\["([^"]*)"\]/g)].map((m) => (m[1] ?? m[2]) as string);
  for (const step of steps) {
    if (!isObject(current) || !(step in current))
      return refuse(at, `each.value${path} names nothing in this instance's value`, 'check the attribute names of the for_each map values');
    current = current[step] as JsonValue;
  }
  return current;
}

function render(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

const WHOLE_ITERATION = new RegExp(String.raw`^\$\{\s*(count\.index|each\.key|each\.value((?:\.[A-Za-z0-9_-]+|\["[^"]*"\])*))\s*\}$`);
const ITERATION_INSIDE = new RegExp(String.raw`^\s*(count\.index|each\.key|each\.value((?:\.[A-Za-z0-9_-]+|\["[^"]*"\])*))\s*$`);

/**
 * Replaces `count.*` / `each.*` in one string, read left to right as Terraform reads a
 * template: an escape (`$${count.index}` is the literal text `${count.index}`) stays as
 * written, `${count.index}` is the index, and inside a reference `[count.index]` /
 * `[each.key]` name one instance. A string that is only `${each.value}` takes the value itself.
 */
function substitute(text: string, it: Iteration, at: string): JsonValue {
  if (!text.includes('count.') && !text.includes('each.')) return text;
  const resolve = (expr: string, path: string | undefined): JsonValue => {
    if (expr === 'count.index') {
      if (it.kind !== 'count') return refuse(at, 'count.index used in a resource without count', 'use each.key / each.value with for_each');
      return it.index;
    }
    if (it.kind !== 'each') return refuse(at, `${expr} used in a resource without for_each`, 'use count.index with count');
    return expr === 'each.key' ? it.key : eachValueAt(it.value, path ?? '', at);
  };
  const whole = WHOLE_ITERATION.exec(text);
  if (whole) return resolve(whole[1] as string, whole[2]);
  return text.replace(TEMPLATE_PART, (part: string, ...rest: unknown[]) => {
    const groups = rest[rest.length - 1] as { expression?: string };
    const expression = groups.expression;
    if (expression === undefined) return part;
    const own = ITERATION_INSIDE.exec(expression);
    if (own) return render(resolve(own[1] as string, own[2]));
    const indexed = expression
      .replace(/\[\s*count\.index\s*\]/g, () => `[${String(resolve('count.index', undefined))}]`)
      .replace(/\[\s*each\.key\s*\]/g, () => `[${JSON.stringify(resolve('each.key', undefined))}]`);
    if (/\b(count|each)\./.test(indexed)) {
      return refuse(
        at,
        `${JSON.stringify(text)} uses count or each in an expression fleetform's engine does not evaluate`,
        'use ${count.index}, ${each.key} or ${each.value...} on their own or as an index',
      );
    }
    return `\${${indexed}}`;
  });
}

function substituteAll(value: JsonValue, it: Iteration, at: string): JsonValue {
  if (typeof value === 'string') return substitute(value, it, at);
  if (Array.isArray(value)) return value.map((v, i) => substituteAll(v, it, `${at}[${i}]`));
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, k, substituteAll(v, it, `${at}.${k}`));
    return out;
  }
  return value;
}

const ITERATION_USE = /\b(count\.index|each\.(?:key|value))/;

/** The first `count.*` / `each.*` inside an interpolation (escapes are literal text). */
function iterationUse(text: string): string | undefined {
  for (const m of text.matchAll(TEMPLATE_PART)) {
    const used = m.groups?.expression === undefined ? undefined : ITERATION_USE.exec(m.groups.expression);
    if (used) return used[1];
  }
  return undefined;
}

/** Without count or for_each, `count.*` and `each.*` stand for nothing (walked without copying). */
function refuseIteration(value: JsonValue, at: string): void {
  if (typeof value === 'string') {
    const m = value.includes('count.') || value.includes('each.') ? iterationUse(value) : undefined;
    if (m)
      refuse(
        at,
        `${m} used in a resource without ${m === 'count.index' ? 'count' : 'for_each'}`,
        `set ${m === 'count.index' ? 'count' : 'for_each'} on the resource, or write the value itself`,
      );
  } else if (Array.isArray(value)) value.forEach((v, i) => refuseIteration(v, `${at}[${i}]`));
  else if (isObject(value)) for (const [k, v] of Object.entries(value)) refuseIteration(v, `${at}.${k}`);
}

/** The instances a resource block stands for: one without count or for_each, else one per index or key. */
export function expandInstances(block: JsonObject, at: string): ResourceInstance[] {
  const { count, for_each: forEach } = block;
  const body: JsonObject = {};
  for (const [k, v] of Object.entries(block)) if (k !== 'count' && k !== 'for_each') setOwn(body, k, v);
  const hasCount = count !== undefined && count !== null;
  const hasForEach = forEach !== undefined && forEach !== null;
  if (hasCount && hasForEach) return refuse(at, 'count and for_each are both set', 'set one of them');
  if (hasCount) {
    const n = countOf(count, `${at}.count`);
    return Array.from({ length: n }, (_, index) => ({
      suffix: `[${index}]`,
      body: substituteAll(body, { kind: 'count', index }, at) as JsonObject,
    }));
  }
  if (hasForEach) {
    return forEachEntries(forEach, `${at}.for_each`).map(([key, value]) => ({
      suffix: `[${JSON.stringify(key)}]`,
      body: substituteAll(body, { kind: 'each', key, value }, at) as JsonObject,
    }));
  }
  refuseIteration(body, at);
  return [{ suffix: '', body }];
}
