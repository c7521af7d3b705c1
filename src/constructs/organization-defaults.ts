import type { Construct, IConstruct } from 'constructs';
import { z } from 'zod';
import { FRAGMENT_TYPE, organizationDefaultsResource } from '../domain/resource-attributes';
import { registerChecks, type IssueSink } from './checks';
import { addFragmentImport, tagDependencies, withDependencies, type IFragment } from './fragment-imports';
import type { JsonValue } from './json-value';
import { kindConstruct, propForm, type KindProps } from './kind-construct';
import { constructTypeOf } from './construct-types';
import { propSchemas } from './props';
import { Secret } from './secret';

/** One default fragment: the fragment, and how every new machine of the organization imports it. */
export interface DefaultFragment {
  /** A Fragment construct, or the id of an existing fragment. */
  readonly fragment: IFragment | string;
  /**
   * The revision (`"3"`) or tag (`"stable"`) new machines import.
   * @default the fragment's latest revision, followed as it changes
   */
  readonly version?: string;
  /** Prepended to the names of the components and services it brings (`front` + `board` -> `front-board`). */
  readonly prefix?: string;
  /** Values of the fragment's variables, each any JSON value (numbers, booleans, objects, ...). */
  readonly variables?: Readonly<Record<string, JsonValue>>;
}

const jsonValue = z.custom<JsonValue>(
  (x) => x !== undefined && typeof x !== 'function' && typeof x !== 'symbol' && typeof x !== 'bigint' && !Secret.isSecret(x),
  'expected a JSON value (an organization keeps its default variables in clear: give a secret on each machine that imports the fragment)',
);

const defaultFragmentSchema = z.strictObject({
  fragment: z.union([
    propSchemas.text.min(1, 'expected a fragment id'),
    propSchemas.construct<IFragment>(FRAGMENT_TYPE, 'expected a Fragment or a fragment id'),
  ]),
  version: propSchemas.text.min(1, 'a version is a revision number or a tag').optional(),
  prefix: propSchemas.text.min(1, 'leave prefix out rather than empty').optional(),
  variables: z.record(z.string(), jsonValue).optional(),
}) satisfies z.ZodType<DefaultFragment>;

const fragmentIdOf = (fragment: IFragment | string): string => (typeof fragment === 'string' ? fragment : fragment.fragmentId);

/** The `fragments` attribute: the imports as JSON text, in the form of a machine config's entries. */
function defaultFragmentsJson(fragments: readonly DefaultFragment[]): string {
  return JSON.stringify(
    fragments.map((f) => ({
      id: fragmentIdOf(f.fragment),
      ...(f.version === undefined ? {} : { version: f.version }),
      ...(f.prefix === undefined ? {} : { prefix: f.prefix }),
      ...(f.variables === undefined ? {} : { variables: f.variables }),
    })),
  );
}

const organizationDefaultsForms = {
  fragments: propForm(z.array(defaultFragmentSchema), { synthesize: defaultFragmentsJson }),
} as const;

/** Properties of {@link OrganizationDefaults}: the default fragments, in order, and the organization (default: the provider's). */
export type OrganizationDefaultsProps = KindProps<typeof organizationDefaultsResource.attributes, typeof organizationDefaultsForms>;

/**
 * The organization's default fragments: every machine created in the organization starts
 * with importing them (one `fleetform_organization_defaults` resource, one per organization).
 * A machine declared in code writes the config its code declares at its first apply, so it
 * runs a default fragment only if it imports it too (`machine.useFragment`).
 */
export class OrganizationDefaults extends kindConstruct(organizationDefaultsResource, {
  constructName: 'OrganizationDefaults',
  forms: organizationDefaultsForms,
  ids: {},
}) {
  /** Whether x is an OrganizationDefaults (of any copy of this library). */
  static isOrganizationDefaults(x: unknown): x is OrganizationDefaults {
    return constructTypeOf(x) === OrganizationDefaults.tfResourceType;
  }

  constructor(scope: Construct, id: string, props: OrganizationDefaultsProps) {
    super(scope, id, props);
    // Recorded as imports, so that one at a tag the stack declares waits for that tag.
    for (const f of this.fragments) addFragmentImport(this, f.fragment, f.version === undefined ? {} : { version: f.version });
  }

  override toTerraform(): Record<string, unknown> {
    return withDependencies(super.toTerraform(), this.terraformResourceType, this.friendlyUniqueId, tagDependencies(this));
  }
}

/** The run-time check of {@link OrganizationDefaultsProps}: strict, without coercion. */
export const organizationDefaultsPropsSchema = OrganizationDefaults.propsSchema;

/** The organization the stack's provider names, when it names one. */
function providerOrganization(stack: IConstruct): string | undefined {
  const provider = stack.node.children.find((c) => constructTypeOf(c) === 'provider');
  const id: unknown = provider === undefined ? undefined : Reflect.get(provider, 'organizationId');
  return typeof id === 'string' ? id : undefined;
}

/** Two declarations of one organization's defaults would overwrite each other: each names the other. */
function checkOnePerOrganization(all: readonly OrganizationDefaults[], sink: IssueSink, stack: IConstruct): void {
  const fallback = providerOrganization(stack) ?? '';
  const byOrganization = new Map<string, OrganizationDefaults[]>();
  for (const d of all) {
    const key = d.organizationId ?? fallback;
    byOrganization.set(key, [...(byOrganization.get(key) ?? []), d]);
  }
  for (const [organization, list] of byOrganization) {
    if (list.length < 2) continue;
    const which = organization === '' ? "the provider's organization" : `organization ${organization}`;
    for (const d of list) {
      const others = list.filter((o) => o !== d).map((o: IConstruct) => o.node.path);
      sink.error(
        d,
        'organizationId',
        'organization-defaults-twice',
        `${which} has its default fragments declared more than once: here and at ${others.join(', ')}`,
        'an organization has one list of default fragments: declare one OrganizationDefaults for it, holding every default fragment',
      );
    }
  }
}

registerChecks<OrganizationDefaults>(OrganizationDefaults.tfResourceType, {
  acrossStack: checkOnePerOrganization,
  each(defaults, sink) {
    const seen = new Map<string, number>();
    defaults.fragments.forEach((f, n) => {
      const key = `${typeof f.fragment === 'string' ? f.fragment : f.fragment.node.path}\u0000${f.prefix ?? ''}`;
      const first = seen.get(key);
      if (first !== undefined)
        sink.error(
          defaults,
          `fragments[${n}]`,
          'organization-defaults-same-import',
          `imports the fragment of fragments[${first}] again${f.prefix === undefined ? '' : ` with the same prefix ${f.prefix}`}`,
          'import a fragment twice only with two prefixes',
        );
      else seen.set(key, n);
    });
  },
});
