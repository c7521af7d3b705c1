/**
 * The validator cannot be crashed or fooled: generated configs (well-formed, broken, deep,
 * huge, with keys such as "__proto__" and "constructor") never throw, every rejection is an
 * issue with a code, a path and a message, a valid config round-trips unchanged, and the
 * names of keys inside attributes and env never change the verdict.
 * CI runs a fixed seed and count; `npm run fuzz` runs many more with a fresh seed.
 */
import fc from 'fast-check';
import { parseMachineConfig, validateMachineConfig, ValidationError, type Issue } from '../../src/domain/validate';

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = process.env.FUZZ_SEED === 'random' ? Date.now() : Number(process.env.FUZZ_SEED ?? 17);

/** Keys that name prototype members, next to ordinary ones. */
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];
/** Each prototype key's ordinary stand-in, equally valid as an environment variable name. */
const STAND_IN: Record<string, string> = Object.fromEntries(PROTO_KEYS.map((k) => [k, `k${k.replace(/^_+/, '')}`]));

/** An object holding exactly these own keys (assignment would set a prototype for "__proto__"). */
function own(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

/** `depth` levels of objects and arrays; reported by its depth when a property fails. */
function nest(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? own([['a', v]]) : [v];
  return Object.defineProperty(v as object, fc.toStringMethod, { value: () => `nest(${depth})` });
}

const key = fc.oneof(
  fc.constantFrom(...PROTO_KEYS),
  fc.string({ maxLength: 8 }),
  fc.constantFrom('VIAM_MODULE_STARTUP_TIMEOUT', 'VIAM_RESOURCE_CONFIGURATION_TIMEOUT'),
);
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('${environment.HOME}', '${bad}', '${', '1m0s', 'zz', '/usr/bin/x', 'rel/x'),
);
const leaf = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
const { shallow } = fc.letrec((tie) => ({
  shallow: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('object'), tie('array')),
  object: fc.array(fc.tuple(key, tie('shallow')), { maxLength: 4 }).map(own),
  array: fc.array(tie('shallow'), { maxLength: 4 }),
}));
/** Any JSON value; now and then one nested far beyond the validator's depth limit. */
const json = fc.oneof({ weight: 30, arbitrary: shallow }, { weight: 1, arbitrary: fc.integer({ min: 60, max: 6000 }).map(nest) });

const names = fc.constantFrom('arm', 'cam', 'base', '__proto__', 'constructor', 'toString', '', 'Bad Name', 'a'.repeat(70));
const triplet = fc.constantFrom(
  'rdk:builtin:fake',
  'acme:sensors:ultra',
  'acme:sensors:Ultra',
  'rdk:component:arm',
  'nope',
  '',
  'acme:__proto__:x',
);
const moduleId = fc.constantFrom('acme:sensors', 'acme:__proto__', 'constructor:x', 'bad id', '');
const version = fc.constantFrom('1.0.0', '^1.2', '~1.2.3', 'latest', 'latest-with-prerelease', 'banana', '');

/** Optional fields: each entry present or not, in any order, sometimes of the wrong type. */
function entriesOf(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  const picks = Object.entries(fields).map(([k, arb]) =>
    fc.option(
      fc.oneof({ weight: 5, arbitrary: arb }, { weight: 1, arbitrary: json }).map((v) => [k, v] as const),
      { freq: 6 },
    ),
  );
  return fc
    .tuple(fc.tuple(...picks), fc.array(fc.tuple(key, json), { maxLength: 2 }))
    .map(([fixed, extra]) =>
      own([...fixed.filter((e): e is readonly [string, unknown] => e !== null), ...extra.filter(([k]) => !(k in fields))]),
    );
}

const resource = entriesOf({
  name: names,
  model: triplet,
  api: fc.constantFrom('rdk:component:arm', 'rdk:service:navigation', 'acme:component:x', 'broken'),
  attributes: fc.array(fc.tuple(key, json), { maxLength: 4 }).map(own),
  depends_on: fc.array(names, { maxLength: 3 }),
});
const moduleEntry = entriesOf({
  type: fc.constantFrom('registry', 'local', 'other'),
  name: names,
  module_id: moduleId,
  version,
  env: fc.array(fc.tuple(key, fc.oneof({ weight: 5, arbitrary: text }, { weight: 1, arbitrary: json })), { maxLength: 4 }).map(own),
  executable_path: text,
});
const config = fc.oneof(
  {
    weight: 4,
    arbitrary: entriesOf({
      components: fc.array(resource, { maxLength: 4 }),
      services: fc.array(resource, { maxLength: 2 }),
      modules: fc.array(moduleEntry, { maxLength: 3 }),
    }),
  },
  { weight: 1, arbitrary: json },
);

/** The same value with every prototype-named key replaced by its stand-in. */
function renamed(value: unknown, depth = 0): unknown {
  // Below the validator's depth limit only the refusal matters, and nest() has no such keys.
  if (depth > 80 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => renamed(v, depth + 1));
  return own(Object.entries(value).map(([k, v]) => [STAND_IN[k] ?? k, renamed(v, depth + 1)] as const));
}

/** Plain checks (thousands of runs): a code, a path, a message that is neither a stack trace nor empty. */
function assertClear(issue: Issue): void {
  const clear =
    typeof issue.code === 'string' &&
    issue.code.length > 0 &&
    typeof issue.path === 'string' &&
    typeof issue.message === 'string' &&
    issue.message.length > 0 &&
    !/\n\s+at |Maximum call stack|\[object Object\]/.test(issue.message);
  if (!clear) throw new Error(`unclear issue: ${JSON.stringify(issue)}`);
}

/** Generous bound for a whole suite run on a loaded machine: only a hang exceeds it. */
const HANG_GUARD_MS = 600_000;

test(
  `${RUNS} generated configs: no crash, every rejection a clear issue, valid ones round-trip (seed ${SEED})`,
  () => {
    let rejected = 0;
    fc.assert(
      fc.property(config, (cfg) => {
        const result = validateMachineConfig(cfg);
        [...result.errors, ...result.warnings].forEach(assertClear);
        if (result.errors.length > 0) {
          rejected += 1;
          let thrown: unknown;
          try {
            parseMachineConfig(cfg);
          } catch (err) {
            thrown = err;
          }
          if (!(thrown instanceof ValidationError))
            throw new Error(`parseMachineConfig did not throw a ValidationError: ${String(thrown)}`);
        } else if (JSON.stringify(parseMachineConfig(cfg)) !== JSON.stringify(cfg)) {
          throw new Error('a valid config did not round-trip unchanged');
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    // The generator reaches both verdicts.
    expect(rejected).toBeGreaterThan(RUNS / 10);
    expect(rejected).toBeLessThan(RUNS);
  },
  HANG_GUARD_MS,
);

test(
  `prototype-named keys are ordinary keys: renaming them never changes a verdict (seed ${SEED})`,
  () => {
    fc.assert(
      fc.property(config, (cfg) => {
        const a = validateMachineConfig(cfg);
        const b = validateMachineConfig(renamed(cfg));
        const codes = (r: typeof a): string => [...r.errors, ...r.warnings].map((i) => `${i.severity}:${i.code}`).join(' ');
        if (codes(a) !== codes(b)) throw new Error(`verdict changed by renaming keys: ${codes(a)} vs ${codes(b)}`);
      }),
      { numRuns: Math.ceil(RUNS / 2), seed: SEED },
    );
  },
  HANG_GUARD_MS,
);

test('nesting 5,000 deep and oversized strings are refused with one clear issue', () => {
  const deep = validateMachineConfig({
    components: [{ name: 'arm', model: 'rdk:builtin:fake', api: 'rdk:component:arm', attributes: { x: nest(5000) } }],
  });
  expect(deep.errors.map((i) => i.code)).toEqual(['too-deep']);
  expect(deep.errors[0]?.path).toMatch(/^components\[0\]\.attributes\.x/);
  const long = validateMachineConfig({
    components: [{ name: 'arm', model: 'rdk:builtin:fake', api: 'rdk:component:arm', attributes: { x: 'y'.repeat(2_000_001) } }],
  });
  expect(long.errors.map((i) => i.code)).toEqual(['too-large']);
  expect(long.errors[0]?.path).toBe('components[0].attributes.x');
});

test('"__proto__" and "constructor" keys round-trip and are checked like any other', () => {
  const text =
    '{"__proto__":{"a":1},"components":[{"name":"arm","model":"rdk:builtin:fake","api":"rdk:component:arm","attributes":{"__proto__":{"k":"v"},"constructor":{"prototype":1}}}],"modules":[{"type":"local","name":"m","executable_path":"/x","env":{"__proto__":"${environment.HOME}","constructor":"1"}}]}';
  expect(JSON.stringify(parseMachineConfig(JSON.parse(text)))).toBe(text);
  const bad = validateMachineConfig(
    JSON.parse('{"modules":[{"type":"local","name":"m","executable_path":"/x","env":{"__proto__":5,"constructor":"${bad}"}}]}'),
  );
  expect(bad.errors.map((i) => `${i.path}: ${i.code}`)).toEqual([
    'modules[0].env.__proto__: type',
    'modules[0].env.constructor: placeholder',
  ]);
  expect(({} as Record<string, unknown>).a).toBeUndefined();
});
