import type { Construct } from 'constructs';
import { z } from 'zod';
import { camelCase, type CamelCase } from '../domain/resource-attributes';
import type { AttributeDeclarations, InputKeys, ResourceDeclaration } from '../domain/resource-declaration';
import { TerraformResource } from './cdk';
import { markConstructType, type ConstructType } from './construct-types';
import { logicalIdFor } from './logical-id';
import { checkProps } from './props';
import { registerFleetConstruct } from './registry';
import { terraformLiterals } from './terraform-literal';

/**
 * How a prop differs from the attribute it is synthesized as: its name (a `Dataset` object
 * given as `dataset` for `dataset_id`), its run-time check, its value when left out and
 * the attribute's value made from it (an enum's wire name). Undefined from `synthesize`
 * leaves the attribute out.
 */
export interface PropOptions<V> {
  readonly prop?: string;
  default?(constructId: string): Exclude<V, undefined>;
  synthesize?(value: Exclude<V, undefined>): unknown;
}

export type PropForm<V> = PropOptions<V> & { readonly schema: z.ZodType<V> };

/** A prop of another form than its attribute's, with its check; see PropOptions. */
export function propForm<V, const O extends PropOptions<V>>(schema: z.ZodType<V>, options: O): O & { readonly schema: z.ZodType<V> } {
  return { ...options, schema };
}

type Output<D> = D extends { readonly schema: z.ZodType<infer O> } ? O : never;

/** The prop forms of a resource's attributes, by attribute name; an attribute without one is its camelCase prop as it is. */
export type PropForms<A extends AttributeDeclarations> = {
  readonly [K in InputKeys<A>]?: PropOptions<unknown> & { readonly schema: z.ZodType };
};

type FormOf<F, K> = K extends keyof F ? F[K] : undefined;
type PropValue<A extends AttributeDeclarations, F, K extends keyof A> =
  FormOf<F, K> extends { readonly schema: z.ZodType<infer V> } ? V : Output<A[K]>;
type PropName<F, K extends string> = FormOf<F, K> extends { readonly prop: infer N extends string } ? N : CamelCase<K>;
type HasDefault<F, K> = FormOf<F, K> extends { default(constructId: string): unknown } ? true : false;
type RequiredKeys<A extends AttributeDeclarations, F> = {
  [K in InputKeys<A>]: HasDefault<F, K> extends true ? never : undefined extends PropValue<A, F, K> ? never : K;
}[InputKeys<A>];

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The props of a resource's construct: each attribute code gives, under its prop name, in its prop form. */
export type KindProps<A extends AttributeDeclarations, F> = Simplify<
  { readonly [K in RequiredKeys<A, F> as PropName<F, K>]: PropValue<A, F, K> } & {
    readonly [K in Exclude<InputKeys<A>, RequiredKeys<A, F>> as PropName<F, K>]?: Exclude<PropValue<A, F, K>, undefined>;
  }
>;

/** The construct's fields: each prop as given, or its default. */
export type KindFields<A extends AttributeDeclarations, F> = Simplify<{
  readonly [K in InputKeys<A> as PropName<F, K>]: HasDefault<F, K> extends true
    ? Exclude<PropValue<A, F, K>, undefined>
    : PropValue<A, F, K>;
}>;

/** A construct class built from a resource's declaration (see kindConstruct). */
export interface KindConstructClass<A extends AttributeDeclarations, F, I> {
  new (
    scope: Construct,
    id: string,
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- true when every prop is optional: then props may be left out
    ...props: {} extends KindProps<A, F> ? [props?: KindProps<A, F>] : [props: KindProps<A, F>]
  ): TerraformResource & KindFields<A, F> & { readonly [G in keyof I]: string };
  /** The Terraform resource type. */
  readonly tfResourceType: `fleetform_${string}`;
  /** The run-time check of the props: strict, without coercion. */
  readonly propsSchema: z.ZodObject;
}

/** One prop of a construct, as the attribute it is synthesized as. */
interface PropEntry {
  readonly attribute: string;
  readonly prop: string;
  readonly schema: z.ZodType;
  readonly form: PropOptions<unknown> | undefined;
}

/**
 * The construct of a resource kind whose attributes are its props, built from the
 * resource's declaration: its props (each attribute code gives, camelCase, in the form
 * `forms` names), their strict run-time check, its fields, its synthesized attributes
 * (those left unset left out) and a getter per computed attribute
 * code references (`ids`: getter name to attribute, e.g. `{ datasetId: 'id' }`). A new
 * attribute of the declaration is a prop, a check and a synthesized attribute at once.
 */
export function kindConstruct<
  A extends AttributeDeclarations,
  const F extends PropForms<A>,
  const I extends Readonly<Record<string, string>>,
>(
  resource: ResourceDeclaration<A>,
  spec: {
    /** The construct's name in errors. */
    readonly constructName: string;
    /** The kind its instances are marked with; the resource type unless older constructs named it otherwise. */
    readonly kind?: ConstructType;
    readonly forms: F;
    readonly ids: I;
  },
): KindConstructClass<A, F, I> {
  const forms = spec.forms as Readonly<Record<string, PropOptions<unknown> & { readonly schema: z.ZodType }>>;
  const entries: PropEntry[] = Object.entries(resource.attributes)
    .filter(([, a]) => a.computed !== 'always')
    .map(([attribute, a]) => {
      const form = forms[attribute];
      return { attribute, prop: form?.prop ?? camelCase(attribute), schema: form?.schema ?? a.schema, form };
    });
  const propsSchema = z.strictObject(Object.fromEntries(entries.map((e) => [e.prop, e.schema])));
  const kind: ConstructType = spec.kind ?? resource.type;

  class KindResource extends TerraformResource {
    static readonly tfResourceType = resource.type;
    static readonly propsSchema = propsSchema;

    constructor(scope: Construct, id: string, props?: Readonly<Record<string, unknown>>) {
      super(scope, id, { terraformResourceType: resource.type });
      markConstructType(this, kind);
      checkProps(this, spec.constructName, propsSchema, props);
      this.overrideLogicalId(logicalIdFor(this));
      const given = props ?? {};
      const fields = this as unknown as Record<string, unknown>;
      for (const e of entries) fields[e.prop] = given[e.prop] ?? e.form?.default?.(id);
      registerFleetConstruct(this);
    }

    protected override synthesizeAttributes(): Record<string, unknown> {
      const fields = this as unknown as Readonly<Record<string, unknown>>;
      const attributes: Record<string, unknown> = {};
      for (const e of entries) {
        const value = fields[e.prop];
        const synthesized = value === undefined || !e.form?.synthesize ? value : e.form.synthesize(value);
        if (synthesized !== undefined) attributes[e.attribute] = synthesized;
      }
      return terraformLiterals(attributes);
    }
  }
  for (const [getter, attribute] of Object.entries(spec.ids)) {
    Object.defineProperty(KindResource.prototype, getter, {
      get(this: TerraformResource): string {
        return this.getStringAttribute(attribute);
      },
    });
  }
  return KindResource as unknown as KindConstructClass<A, F, I>;
}
