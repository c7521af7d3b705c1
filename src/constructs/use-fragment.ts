import { z } from 'zod';
import type { UseFragmentOptions } from './fragment-imports';
import type { JsonValue } from './json-value';
import { propSchemas } from './props';
import { Secret } from './secret';

const jsonValue = z.custom<JsonValue>(
  (x) => x !== undefined && typeof x !== 'function' && typeof x !== 'symbol' && typeof x !== 'bigint',
  'expected a JSON value',
);
const paths = z.record(z.string(), jsonValue);

/** The run-time check of {@link UseFragmentOptions}: strict, without coercion. */
export const useFragmentOptionsSchema = z
  .strictObject({
    version: propSchemas.text.min(1, 'a version is a revision number or a tag').optional(),
    prefix: propSchemas.text.min(1, 'leave prefix out rather than empty').optional(),
    variables: z
      .record(
        z.string(),
        z.custom<JsonValue | Secret>((x) => Secret.isSecret(x) || jsonValue.safeParse(x).success, 'expected a JSON value or a Secret'),
      )
      .optional(),
    mods: z.array(z.strictObject({ $set: paths.optional(), $unset: paths.optional() })).optional(),
    disabled: z.boolean().optional(),
    bareId: z.boolean().optional(),
  })
  .refine(
    (o) =>
      o.bareId !== true || (o.version === undefined && o.prefix === undefined && o.variables === undefined && o.disabled === undefined),
    {
      message: 'an import written as its bare id takes no version, prefix, variables or disabled: leave bareId out to give them',
      path: ['bareId'],
    },
  ) satisfies z.ZodType<UseFragmentOptions>;
