/**
 * Props recognized without zod are props the construct's schema accepts: generated props
 * (right and wrong types, unknown and prototype-named keys, class instances, holes) never
 * pass the quick test when zod refuses them, and right props nearly always pass it.
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
import { quicklyAccepted } from '../../src/constructs/props-quick';
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

const schemas = { machinePropsSchema, modulePropsSchema, modularResourcePropsSchema, datasetPropsSchema, fleetProviderPropsSchema, trainingJobPropsSchema, customTrainingJobPropsSchema };
const fieldNames = [...new Set(Object.values(schemas).flatMap((s) => Object.keys(s.shape)))];
const key = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...fieldNames) }, { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'verison', '') });
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
  const fields = Object.keys(schema.shape).map((k) => fc.option(likely.map((v) => [k, v] as const), { freq: 8 }));
  const object = fc
    .tuple(fc.tuple(...fields), fc.option(fc.tuple(key, value), { freq: 4 }))
    .map(([picked, extra]) => own([...picked.filter((e): e is readonly [string, unknown] => e !== null), ...(extra ? [extra] : [])]));
  return fc.oneof({ weight: 10, arbitrary: object }, { weight: 1, arbitrary: value });
}

test.each(Object.entries(schemas))('%s: what passes the quick test, zod accepts', (name, schema) => {
  let quick = 0;
  fc.assert(
    fc.property(propsOf(schema as z.ZodObject), (p) => {
      if (!quicklyAccepted(schema as z.ZodObject, p)) return;
      quick += 1;
      expect((schema as z.ZodObject).safeParse(p).success).toBe(true);
    }),
    { numRuns: 3000, seed: 5 },
  );
  // Schemas with kinds the quick test does not know (enums) are left to zod entirely.
  if (name.startsWith('trainingJob') || name.startsWith('customTrainingJob')) expect(quick).toBe(0);
  else expect(quick).toBeGreaterThan(0);
});

test('the props a fleet is declared with pass the quick test', () => {
  expect(quicklyAccepted(modulePropsSchema, { moduleId: 'acme:x', version: '~1.2', env: { A: 'b' }, sensitiveEnv: {} })).toBe(true);
  expect(quicklyAccepted(modularResourcePropsSchema, { api: 'rdk:component:arm', model: 'acme:x:y', attributes: { a: [1] }, dependsOn: ['b', resource] })).toBe(true);
  expect(quicklyAccepted(machinePropsSchema, {})).toBe(true);
  expect(quicklyAccepted(modularResourcePropsSchema, { api: 'rdk:component:arm', model: 'acme:x:y', dependsOn: [sensors] })).toBe(false);
});
