import { z } from 'zod';
import { FleetformError } from '../domain/errors';
import { jsonEqual, UNKNOWN, type JsonObject } from './json';

/**
 * The Terraform type of an attribute, in the JSON form a provider schema sends:
 * `"string"`, `["list","string"]`, `["map","string"]`, `["object",{"a":"string"}]`.
 */
export type TerraformType =
  | 'string'
  | 'number'
  | 'bool'
  | readonly ['list', TerraformType]
  | readonly ['map', TerraformType]
  | readonly ['object', { readonly [name: string]: TerraformType }];

/**
 * Who sets an attribute: `required` and `optional` come from code; `computed` only from
 * the service (e.g. an id); `optional-computed` from code, or from the service or the
 * provider's defaults when code leaves it out (e.g. a machine's location).
 */
export type AttributePresence = 'required' | 'optional' | 'computed' | 'optional-computed';

/** Secrets inside an attribute's value (e.g. secret env entries inside a machine's config). */
export interface SensitiveParts {
  /** Which parts are secret, as the reference docs say it. */
  readonly describe: string;
  /** Paths (diffJson's notation) of the secret parts in the desired view of the resource. */
  paths(view: JsonObject, attributes: Readonly<Record<string, unknown>>): readonly string[];
}

/** How one attribute is declared: its zod schema and what Terraform's schema says of it. */
export interface AttributeDeclaration<S extends z.ZodType = z.ZodType> {
  /** The rule of the value code gives (optional when code may leave it out); for a computed one, of what the service gives. */
  readonly schema: S;
  /** One sentence for the reference docs and the provider schema. */
  readonly description: string;
  /** `always`: only the service sets it (an id); `when-unset`: the service or fleetform fills it when code leaves it out. */
  readonly computed?: 'always' | 'when-unset';
  /** `true`: the whole value is secret; parts: only what `paths` names is. Secrets are masked in plans, logs and state. */
  readonly sensitive?: true | SensitiveParts;
  /** A different value cannot be applied in place: the object is replaced. */
  readonly forcesReplacement?: boolean;
  /** What is used when code leaves the attribute out, as the docs show it. */
  readonly serviceDefault?: string;
}

/** What a kind declares of one attribute: the facts Terraform's schema holds, once, derived from its declaration. */
export interface AttributeFacts {
  readonly name: string;
  readonly type: TerraformType;
  readonly presence: AttributePresence;
  /** `whole`: the value is a secret; `parts`: secrets inside it (see sensitiveParts). */
  readonly sensitive: 'no' | 'whole' | 'parts';
  readonly sensitiveParts?: SensitiveParts;
  readonly forcesReplacement: boolean;
  readonly description: string;
  readonly serviceDefault?: string;
}

type AttributeDeclarations = { readonly [name: string]: AttributeDeclaration };

/** The names of the attributes code gives: every declared one but those only the service sets. */
type InputKeys<A extends AttributeDeclarations> = { [K in keyof A]: A[K] extends { readonly computed: 'always' } ? never : K }[keyof A] & string;

/** The strict zod object of the attributes code gives. */
export type InputSchema<A extends AttributeDeclarations> = z.ZodObject<{ -readonly [K in InputKeys<A>]: A[K]['schema'] }, z.core.$strict>;

/**
 * A resource kind's declaration: its synthesized type, a zod schema of the attributes
 * code gives it, and the facts of every attribute (those code gives and the computed
 * ones). Validation, plan (replace reasons), state masking, the provider schema and the
 * reference docs are all derived from it.
 */
export interface KindDeclaration<Schema extends z.ZodObject = z.ZodObject> {
  /** The synthesized resource type, e.g. `fleetform_machine`. */
  readonly type: string;
  /** One paragraph for the reference docs and the provider schema. */
  readonly description: string;
  /** The attributes code gives (what `desire` receives), parsed and typed. */
  readonly schema: Schema;
  /** Facts of each attribute: every key of `schema`, plus the computed ones, in declaration order. */
  readonly attributes: Readonly<Record<string, AttributeFacts>>;
  /** Version of the attribute layout; raised when stored state must be upgraded. */
  readonly schemaVersion: number;
}

/** The typed attributes `desire` receives for a declaration. */
export type KindAttributes<D extends KindDeclaration> = z.output<D['schema']>;

/** The zod definition of a schema, without wrappers that do not change its Terraform type. */
function unwrapped(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    const def = s._zod.def as { type: string; innerType?: z.ZodType; in?: z.ZodType };
    if ((def.type === 'optional' || def.type === 'default' || def.type === 'nullable' || def.type === 'readonly' || def.type === 'prefault') && def.innerType) s = def.innerType;
    else if (def.type === 'pipe' && def.in) s = def.in;
    else return s;
  }
}

/** The Terraform type a zod schema describes; a schema Terraform cannot express is an error at declaration. */
export function terraformTypeOf(schema: z.ZodType, path: string): TerraformType {
  const s = unwrapped(schema);
  const def = s._zod.def as { type: string; element?: z.ZodType; valueType?: z.ZodType; shape?: Record<string, z.ZodType>; values?: unknown[] };
  switch (def.type) {
    case 'string':
    case 'enum':
      return 'string';
    case 'number':
    case 'int':
    case 'bigint':
      return 'number';
    case 'boolean':
      return 'bool';
    case 'literal': {
      const v = def.values?.[0];
      return typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'bool' : 'string';
    }
    case 'array':
      return ['list', terraformTypeOf(def.element as z.ZodType, `${path}[]`)];
    case 'record':
      return ['map', terraformTypeOf(def.valueType as z.ZodType, `${path}{}`)];
    case 'object': {
      const fields: Record<string, TerraformType> = {};
      for (const [k, v] of Object.entries(def.shape ?? {})) fields[k] = terraformTypeOf(v, `${path}.${k}`);
      return ['object', fields];
    }
    default:
      throw new FleetformError(`attribute ${path} has a schema of type ${def.type}, which Terraform cannot express`, {
        path,
        hint: 'use strings, numbers, booleans, arrays, records or objects of them',
      });
  }
}

function factsOf(type: string, name: string, a: AttributeDeclaration): AttributeFacts {
  const optional = a.schema.safeParse(undefined).success;
  if (a.computed === 'when-unset' && !optional) {
    throw new FleetformError(`${type}.${name} is computed when unset but its schema requires a value`, { path: `${type}.${name}`, hint: 'make its schema .optional()' });
  }
  const presence: AttributePresence = a.computed === 'always' ? 'computed' : !optional ? 'required' : a.computed === 'when-unset' ? 'optional-computed' : 'optional';
  return {
    name,
    type: terraformTypeOf(a.schema, `${type}.${name}`),
    presence,
    sensitive: a.sensitive === undefined ? 'no' : a.sensitive === true ? 'whole' : 'parts',
    ...(a.sensitive !== undefined && a.sensitive !== true ? { sensitiveParts: a.sensitive } : {}),
    forcesReplacement: a.forcesReplacement === true,
    description: a.description,
    ...(a.serviceDefault !== undefined ? { serviceDefault: a.serviceDefault } : {}),
  };
}

/**
 * Declares a resource kind once: each attribute's zod schema with its Terraform facts.
 * The result's `schema` is the strict object of the attributes code gives (computed
 * `always` ones are the service's), and `attributes` holds every attribute's facts.
 */
export function defineKind<const A extends AttributeDeclarations>(declaration: {
  readonly type: string;
  readonly description: string;
  readonly schemaVersion?: number;
  readonly attributes: A;
}): KindDeclaration<InputSchema<A>> {
  const shape: Record<string, z.ZodType> = {};
  const attributes: Record<string, AttributeFacts> = {};
  for (const [name, a] of Object.entries(declaration.attributes)) {
    attributes[name] = factsOf(declaration.type, name, a);
    if (a.computed !== 'always') shape[name] = a.schema;
  }
  return {
    type: declaration.type,
    description: declaration.description,
    schema: z.strictObject(shape) as unknown as InputSchema<A>,
    attributes,
    schemaVersion: declaration.schemaVersion ?? 0,
  };
}

/** Paths of the desired view holding secrets: whole sensitive attributes and the declared secret parts. */
export function sensitivePathsOf(declaration: KindDeclaration, view: JsonObject, attributes: Readonly<Record<string, unknown>>): string[] {
  const paths: string[] = [];
  for (const facts of Object.values(declaration.attributes)) {
    if (facts.sensitive === 'whole' && view[facts.name] !== undefined) paths.push(facts.name);
    if (facts.sensitiveParts) paths.push(...facts.sensitiveParts.paths(view, attributes));
  }
  return paths;
}

/**
 * The attributes code would give for a view whose attributes are as code gives them: the
 * declared attributes that are not computed `always`, those the view has.
 */
export function attributesFromView(declaration: KindDeclaration, view: JsonObject): JsonObject {
  const attributes: JsonObject = {};
  for (const facts of Object.values(declaration.attributes)) {
    const value = view[facts.name];
    if (facts.presence !== 'computed' && value !== undefined) attributes[facts.name] = value;
  }
  return attributes;
}

/** The replace-forcing attributes whose value differs between what exists and what is desired (an unknown value forces nothing yet). */
export function replaceReasonsOf(declaration: KindDeclaration, current: JsonObject, desired: JsonObject): string[] {
  return Object.values(declaration.attributes)
    .filter((f) => f.forcesReplacement && desired[f.name] !== UNKNOWN && !jsonEqual(current[f.name], desired[f.name]))
    .map((f) => f.name);
}
