import { z } from 'zod';
import { FleetformError } from '../domain/errors';
import type {
  AttributeDeclaration,
  AttributeDeclarations,
  InputKeys,
  ResourceDeclaration,
  ResourceView,
  SensitiveParts,
} from '../domain/resource-declaration';
import { jsonEqual, isUnknown, type JsonObject, type JsonValue } from './json';

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

export type { AttributeDeclaration, SensitiveParts } from '../domain/resource-declaration';

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
  /** The value that leaves the choice to the service (see AttributeDeclaration.serviceChoosesWhen). */
  readonly serviceChoosesWhen?: string | number | boolean;
  /** fleetform's own setting: a difference in it alone changes nothing on the service. */
  readonly ignoredForChanges: boolean;
  /** A new value at every update of the object (see AttributeDeclaration.changesOnUpdate). */
  readonly changesOnUpdate?: true;
  /** Changed by the service on its own, refreshed at every read (see AttributeDeclaration.observed). */
  readonly observed?: true;
}

/** The strict zod object of the attributes code gives. */
export type InputSchema<A extends AttributeDeclarations> = z.ZodObject<{ -readonly [K in InputKeys<A>]: A[K]['schema'] }, z.core.$strict>;

/**
 * A resource kind's declaration: its synthesized type, a zod schema of the attributes
 * code gives it, and the facts of every attribute (those code gives and the computed
 * ones). Validation, plan (replace reasons), state masking, the provider schema and the
 * reference docs are all derived from it.
 */
export interface KindDeclaration<Schema extends z.ZodObject = z.ZodObject, View extends JsonObject = JsonObject> {
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
  /** Terraform (HCL) of the resource in use, for the reference docs. */
  readonly example?: string;
  /**
   * The attributes whose value, when it is this one, leaves the choice to the service (an
   * unspecified framework): a plan shows a new object's as known after apply, not as sent.
   */
  readonly serviceChosen: Readonly<Record<string, JsonValue>>;
  /** Carries the type of the view the kind compares (desired and observed); never set. */
  readonly view?: View;
}

/** The view type of a declaration: what a kind's desire returns and its observe reads. */
export type ViewOf<D extends KindDeclaration> = NonNullable<D['view']>;

/** The typed attributes `desire` receives for a declaration. */
export type KindAttributes<D extends KindDeclaration> = z.output<D['schema']>;

/** The zod definition of a schema, without wrappers that do not change its Terraform type. */
function unwrapped(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    const def = s._zod.def as { type: string; innerType?: z.ZodType; in?: z.ZodType };
    if (
      (def.type === 'optional' ||
        def.type === 'default' ||
        def.type === 'nullable' ||
        def.type === 'readonly' ||
        def.type === 'prefault') &&
      def.innerType
    )
      s = def.innerType;
    else if (def.type === 'pipe' && def.in) s = def.in;
    else return s;
  }
}

/** The Terraform type a zod schema describes; a schema Terraform cannot express is an error at declaration. */
export function terraformTypeOf(schema: z.ZodType, path: string): TerraformType {
  const s = unwrapped(schema);
  const def = s._zod.def as {
    type: string;
    element?: z.ZodType;
    valueType?: z.ZodType;
    shape?: Record<string, z.ZodType>;
    values?: unknown[];
  };
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
    throw new FleetformError(`${type}.${name} is computed when unset but its schema requires a value`, {
      path: `${type}.${name}`,
      hint: 'make its schema .optional()',
    });
  }
  if (a.serviceChoosesWhen !== undefined && a.computed !== 'when-unset') {
    throw new FleetformError(`${type}.${name} leaves the choice to the service but is not computed when unset`, {
      path: `${type}.${name}`,
      hint: "declare it computed: 'when-unset'",
    });
  }
  const presence: AttributePresence =
    a.computed === 'always' ? 'computed' : !optional ? 'required' : a.computed === 'when-unset' ? 'optional-computed' : 'optional';
  return {
    name,
    type: terraformTypeOf(a.schema, `${type}.${name}`),
    presence,
    sensitive: a.sensitive === undefined ? 'no' : a.sensitive === true ? 'whole' : 'parts',
    ...(a.sensitive !== undefined && a.sensitive !== true ? { sensitiveParts: a.sensitive } : {}),
    forcesReplacement: a.forcesReplacement === true,
    description: a.description,
    ...(a.serviceDefault !== undefined ? { serviceDefault: a.serviceDefault } : {}),
    ...(a.serviceChoosesWhen !== undefined ? { serviceChoosesWhen: a.serviceChoosesWhen } : {}),
    ignoredForChanges: a.ignoredForChanges === true,
    ...(a.changesOnUpdate === true && a.computed === 'always' ? { changesOnUpdate: true as const } : {}),
    ...(a.observed === true && a.computed === 'always' ? { observed: true as const } : {}),
  };
}

/**
 * A resource kind's declaration, built over its resource declaration (the attributes the
 * construct shares, from the domain) or declared in place: the result's `schema` is the
 * strict object of the attributes code gives (computed `always` ones are the service's),
 * `attributes` holds every attribute's facts, and its view type is the attributes as the
 * kind compares them (see ResourceView).
 */
export function defineKind<const A extends AttributeDeclarations>(
  declaration: ResourceDeclaration<A>,
): KindDeclaration<InputSchema<A>, ResourceView<A>> {
  const shape: Record<string, z.ZodType> = {};
  const attributes: Record<string, AttributeFacts> = {};
  const serviceChosen: Record<string, JsonValue> = {};
  for (const [name, a] of Object.entries(declaration.attributes)) {
    attributes[name] = factsOf(declaration.type, name, a);
    if (a.computed !== 'always') shape[name] = a.schema;
    if (a.serviceChoosesWhen !== undefined) serviceChosen[name] = a.serviceChoosesWhen;
  }
  return {
    type: declaration.type,
    description: declaration.description,
    schema: z.strictObject(shape) as unknown as InputSchema<A>,
    attributes,
    schemaVersion: declaration.schemaVersion ?? 0,
    ...(declaration.example !== undefined ? { example: declaration.example } : {}),
    serviceChosen,
  };
}

/**
 * An observed view with the attributes code left to the service as they were applied
 * (their unspecified value), and what the service chose for them as facts: a choice the
 * service made is no drift.
 */
export function keepServiceChoices<View extends JsonObject>(
  declaration: KindDeclaration,
  observed: View,
  applied: JsonObject | null,
): { view: View; facts: Record<string, string> } {
  const facts: Record<string, string> = {};
  let view = observed;
  for (const [key, unspecified] of Object.entries(declaration.serviceChosen)) {
    const chosen = observed[key];
    if (applied?.[key] !== unspecified || chosen === undefined) continue;
    if (chosen !== unspecified) facts[key] = String(chosen);
    view = { ...view, [key]: unspecified };
  }
  return { view, facts };
}

/** The attributes fleetform keeps to itself: a difference in them alone changes nothing on the service. */
export function ignoredForChangesOf(declaration: KindDeclaration): ReadonlySet<string> {
  return new Set(
    Object.values(declaration.attributes)
      .filter((f) => f.ignoredForChanges)
      .map((f) => f.name),
  );
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

/**
 * The replace-forcing attributes whose value differs between what exists and what is desired
 * (an unknown value forces nothing yet, nor does one a record written before the attribute
 * was declared lacks while the desired value is the service's default, which such an object has).
 */
export function replaceReasonsOf(declaration: KindDeclaration, current: JsonObject, desired: JsonObject): string[] {
  return Object.values(declaration.attributes)
    .filter((f) => f.forcesReplacement && !isUnknown(desired[f.name]) && !jsonEqual(current[f.name], desired[f.name]))
    .filter((f) => !(current[f.name] === undefined && f.serviceDefault !== undefined && desired[f.name] === f.serviceDefault))
    .map((f) => f.name);
}
