/**
 * The compiled props check gives the construct's schema's own verdict: generated props
 * (right and wrong types, unknown and prototype-named keys, class instances, holes) pass
 * checkProps exactly when the schema (not compiled) accepts them, and a refusal names the
 * same props the schema's issues name.
 */
import fc from 'fast-check';
import type { z } from 'zod';
import { Construct } from 'constructs';
import { customTrainingJobPropsSchema } from '../../src/constructs/custom-training-job';
import { datasetPropsSchema } from '../../src/constructs/dataset';
import { machinePropsSchema } from '../../src/constructs/machine';
import { modularResourcePropsSchema, ModularResource } from '../../src/constructs/modular-resource';
import { modulePropsSchema, Module } from '../../src/constructs/module';
import { Machine } from '../../src/constructs';
import { checkProps, PropsError } from '../../src/constructs/props';
import { fleetProviderPropsSchema } from '../../src/constructs/provider';
import { trainingJobPropsSchema } from '../../src/constructs/training-job';
import { newStack } from './helpers';

const { stack } = newStack();
const machine = new Machine(stack, 'm');
const sensors = new Module(machine, 'mod', { moduleId: 'acme:x' });
const resource = new ModularResource(machine, 'r', { api: 'rdk:component:arm', model: 'acme:x:y' });

/** An object holding exactly these own keys (assignment would set a prototype for "__proto__"). */
function own(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

const schemas = {
  machinePropsSchema,
  modulePropsSchema,
  modularResourcePropsSchema,
  datasetPropsSchema,
  fleetProviderPropsSchema,
  trainingJobPropsSchema,
  customTrainingJobPropsSchema,
};
const fieldNames = [...new Set(Object.values(schemas).flatMap((s) => Object.keys(s.shape)))];
const key = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...fieldNames) },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'verison', '') },
);
const text = fc.constantFrom('acme:x', 'rdk:component:arm', '1.2.3', '', 'x');
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    { weight: 6, arbitrary: text },
    fc.integer(),
    fc.constant(undefined),
    fc.constant(null),
    // eslint-disable-next-line no-sparse-arrays -- an array with a hole is one of the values drawn
    fc.constantFrom<unknown>(resource, sensors, machine, new Construct(stack, 'plain'), new Date(0), Object.create(null), [, 'hole']),
    { weight: 2, arbitrary: tie('object') },
    { weight: 2, arbitrary: tie('array') },
  ),
  object: fc.array(fc.tuple(fc.oneof(key, fc.string({ maxLength: 4 })), tie('value')), { maxLength: 3 }).map(own),
  array: fc.array(tie('value'), { maxLength: 3 }),
}));
const likely = fc.oneof(
  { weight: 6, arbitrary: text },
  { weight: 2, arbitrary: fc.array(fc.tuple(fc.constantFrom('A', 'B_KEY', '__proto__'), text), { maxLength: 2 }).map(own) },
  { weight: 2, arbitrary: fc.array(fc.oneof(text, fc.constant<unknown>(resource)), { maxLength: 2 }) },
  { weight: 2, arbitrary: value },
);
/** Props of a schema: each of its keys present or not, sometimes an extra key, sometimes not an object at all. */
function propsOf(schema: z.ZodObject): fc.Arbitrary<unknown> {
  const fields = Object.keys(schema.shape).map((k) =>
    fc.option(
      likely.map((v) => [k, v] as const),
      { freq: 8 },
    ),
  );
  const object = fc
    .tuple(fc.tuple(...fields), fc.option(fc.tuple(key, value), { freq: 4 }))
    .map(([picked, extra]) => own([...picked.filter((e): e is readonly [string, unknown] => e !== null), ...(extra ? [extra] : [])]));
  return fc.oneof({ weight: 10, arbitrary: object }, { weight: 1, arbitrary: value });
}

/** The message checkProps gives for props, or undefined when it accepts them. */
function verdict(schema: z.ZodObject, props: unknown): string | undefined {
  try {
    checkProps(machine, 'Props', schema, props);
    return undefined;
  } catch (e) {
    if (!(e instanceof PropsError)) throw e;
    return e.message;
  }
}

test.each(Object.entries(schemas))('%s: checkProps accepts what the schema accepts, and only that', (name, schema) => {
  const accepted = { yes: 0, no: 0 };
  fc.assert(
    fc.property(propsOf(schema as z.ZodObject), (p) => {
      const expected = (schema as z.ZodObject).safeParse(p ?? {});
      const message = verdict(schema as z.ZodObject, p);
      expect(message === undefined).toBe(expected.success);
      accepted[expected.success ? 'yes' : 'no'] += 1;
      if (!expected.success)
        for (const issue of expected.error.issues) if (issue.path[0] !== undefined) expect(message).toContain(String(issue.path[0]));
    }),
    { numRuns: 3000, seed: 5 },
  );
  // The generated props exercise both verdicts (a training job's enums are never generated right).
  if (!name.startsWith('trainingJob') && !name.startsWith('customTrainingJob')) expect(accepted.yes).toBeGreaterThan(0);
  expect(accepted.no).toBeGreaterThan(0);
});

test('the props a fleet is declared with pass, a construct where a module belongs is named', () => {
  expect(verdict(modulePropsSchema, { moduleId: 'acme:x', version: '~1.2', env: { A: 'b' }, sensitiveEnv: {} })).toBeUndefined();
  expect(
    verdict(modularResourcePropsSchema, {
      api: 'rdk:component:arm',
      model: 'acme:x:y',
      attributes: { a: [1] },
      dependsOn: ['b', resource],
    }),
  ).toBeUndefined();
  expect(verdict(machinePropsSchema, {})).toBeUndefined();
  expect(verdict(modularResourcePropsSchema, { api: 'rdk:component:arm', model: 'acme:x:y', dependsOn: [sensors] })).toMatch(/dependsOn/);
});
