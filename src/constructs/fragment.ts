import type { Construct } from 'constructs';
import { z } from 'zod';
import type { MachineConfig } from '../domain';
import { FleetformError } from '../domain/errors';
import { VARIABLE_NAME_PATTERN } from '../domain/fragment-variables';
import { FRAGMENT_TYPE, FRAGMENT_VISIBILITIES, fragmentTagResource } from '../domain/resource-attributes';
import { TerraformResource, TerraformStack } from './cdk';
import { registerChecks, type IssueSink } from './checks';
import { synthesizedConfig } from './config-json';
import {
  addDeclaredTag,
  addFragmentImport,
  tagDependencies,
  withDependencies,
  type IFragment,
  type UseFragmentOptions,
} from './fragment-imports';
import type { JsonObject } from './json-value';
import { kindConstruct, propForm, type KindProps } from './kind-construct';
import { constructTypeOf, markConstructType, markConstructTypeOfClass } from './construct-types';
import { logicalIdFor } from './logical-id';
import { machineChecks } from './machine-synthesis';
import { machineConfigJson, machineParts } from './machine-config';
import { declareEmptyLists, emptyListsSchema, sectionsOf } from './machine-sections';
import type { EmptyListSection } from '../domain/config';
import { overridePath } from './config-overrides';
import type { IMachine, IModularResource, IModule, IPackage } from './machine-parts';
import { enclosingMachine, FRAGMENT_KIND } from './machine-scope';
import { checkProps, propSchemas } from './props';
import { registerFleetConstruct } from './registry';
import { bumpGeneration } from './generation';
import { terraformLiterals } from './terraform-literal';
import { useFragmentOptionsSchema } from './use-fragment';

/** Properties of a {@link Fragment}. */
export interface FragmentProps {
  /**
   * Name of the fragment.
   * @default the construct id
   */
  readonly name?: string;
  /**
   * Who may see and import it: `private` (its organization), `public` (listed to everyone)
   * or `public_unlisted` (anyone with its id).
   * @default private
   */
  readonly visibility?: (typeof FRAGMENT_VISIBILITIES)[number];
  /**
   * Organization owning the fragment.
   * @default the provider's organization
   */
  readonly organizationId?: string;
  /**
   * The lists the config holds even when nothing fills them, written `[]`: any of
   * `components`, `services`, `modules`, `packages`, `remotes`, `processes`. A list with
   * entries is always written; any other list without entries is left out of the config.
   * @default ['components', 'services', 'modules']
   */
  readonly emptyLists?: readonly EmptyListSection[];
}

/** The run-time check of {@link FragmentProps}: strict, without coercion. */
export const fragmentPropsSchema = z.strictObject({
  name: propSchemas.text.optional(),
  visibility: z.enum(FRAGMENT_VISIBILITIES).optional(),
  organizationId: propSchemas.text.optional(),
  emptyLists: emptyListsSchema.optional(),
}) satisfies z.ZodType<FragmentProps>;

/**
 * A fragment: one config (modules, components, services, nested fragment imports) that
 * machines import with `machine.useFragment(fragment, {...})`, one `fleetform_fragment`
 * resource. {@link Module}s and {@link ModularResource}s are declared inside it exactly as
 * inside a {@link Machine}; `fragment.variable(name)` stands for a value each importing
 * machine sets. Every apply that changes it saves a new revision (`revision`).
 */
export class Fragment extends TerraformResource implements IMachine, IFragment {
  /** The Terraform resource type. */
  static readonly tfResourceType = FRAGMENT_TYPE;

  /** Whether x is a Fragment (of any copy of this library). */
  static isFragment(x: unknown): x is Fragment {
    return constructTypeOf(x) === FRAGMENT_KIND;
  }

  /** Name of the fragment. */
  readonly name: string;
  readonly visibility: FragmentProps['visibility'];
  readonly organizationId: string | undefined;
  /** A fragment lives in no location. */
  readonly locationId: undefined = undefined;

  constructor(scope: Construct, id: string, props: FragmentProps = {}) {
    super(scope, id, { terraformResourceType: Fragment.tfResourceType });
    markConstructType(this, FRAGMENT_KIND);
    checkProps(this, 'Fragment', fragmentPropsSchema, props);
    const outer = enclosingMachine(this);
    if (outer !== undefined) {
      throw new FleetformError('a Fragment cannot be declared inside a Machine or another Fragment', {
        path: this.node.path,
        hint: `declare it in the stack, and import it with useFragment, instead of inside ${outer.node.path}`,
      });
    }
    this.overrideLogicalId(logicalIdFor(this));
    this.name = props.name ?? id;
    this.visibility = props.visibility;
    this.organizationId = props.organizationId;
    declareEmptyLists(this, props.emptyLists);
    registerFleetConstruct(this);
  }

  /** The fragment id the service assigns, known after apply: what machines import. */
  get fragmentId(): string {
    return this.getStringAttribute('id');
  }

  /** The revision the last apply saved (a new one at every change), known after apply. */
  get revision(): string {
    return this.getStringAttribute('revision');
  }

  /** A fragment is no machine: it has no machine id. */
  get machineId(): string {
    throw new FleetformError(`${this.node.path} is a Fragment, which has no machine id`, { path: this.node.path, hint: 'use fragmentId' });
  }

  /** The modules declared inside this fragment, in declaration order. */
  /**
   * Sets a value in this fragment's config at a dotted path after everything typed, or
   * removes it with `undefined`: for whatever no construct declares (`network`, `_comment`).
   */
  addConfigOverride(path: string, value: unknown): this {
    sectionsOf(this).overrides.push({ path: overridePath(path, this.node.path), value });
    bumpGeneration();
    return this;
  }

  get modules(): IModule[] {
    return machineParts(this).modules;
  }

  /** The modular resources declared inside this fragment, in declaration order. */
  get resources(): IModularResource[] {
    return machineParts(this).resources;
  }

  /** The packages declared inside this fragment, in declaration order. */
  get packages(): IPackage[] {
    return machineParts(this).packages;
  }

  /** The config document of this fragment (`components`, `services`, `modules`, `packages`). */
  toMachineConfig(): MachineConfig {
    return JSON.parse(machineConfigJson(this)) as MachineConfig;
  }

  /**
   * A value each importing machine sets (`useFragment(fragment, { variables: { [name]: value } })`):
   * `{"$variable": {"name": name}}` in the fragment's config.
   */
  variable(name: string): JsonObject {
    if (!VARIABLE_NAME_PATTERN.test(name)) {
      throw new FleetformError(`fragment variable name ${JSON.stringify(name)} is not valid`, {
        path: this.node.path,
        hint: 'use letters, digits, _ and -, starting with a letter or _',
      });
    }
    return { $variable: { name } };
  }

  /** Imports another fragment into this one (fragments nest up to five levels). */
  useFragment(fragment: IFragment | string, options: UseFragmentOptions = {}): this {
    checkProps(this, 'useFragment', useFragmentOptionsSchema, options);
    if (fragment === this)
      throw new FleetformError('a Fragment cannot import itself', { path: this.node.path, hint: 'import another fragment' });
    addFragmentImport(this, fragment, options);
    bumpGeneration();
    return this;
  }

  override toTerraform(): Record<string, unknown> {
    return withDependencies(super.toTerraform(), this.terraformResourceType, this.friendlyUniqueId, tagDependencies(this));
  }

  protected override synthesizeAttributes(): Record<string, unknown> {
    const attributes: Record<string, unknown> = { name: this.name, config: synthesizedConfig(this).configJson };
    if (this.visibility !== undefined) attributes.visibility = this.visibility;
    if (this.organizationId !== undefined) attributes.organization_id = this.organizationId;
    return terraformLiterals(attributes);
  }
}

markConstructTypeOfClass(Fragment, FRAGMENT_KIND);

/** Fragment names: not empty, unique per organization. */
function checkFragmentNames(fragments: readonly Fragment[], sink: IssueSink): void {
  const seen = new Map<string, Fragment>();
  for (const fragment of fragments) {
    if (fragment.name.trim() === '') {
      sink.error(
        fragment,
        'name',
        'fragment-name',
        'fragment name is empty',
        'name the fragment, or leave name out to use the construct id',
      );
      continue;
    }
    const key = `${fragment.organizationId ?? ''}\u0000${fragment.name}`;
    const first = seen.get(key);
    if (first)
      sink.error(
        fragment,
        'name',
        'duplicate-fragment-name',
        `fragment name "${fragment.name}" is also used by ${first.node.path}`,
        'give each fragment its own name',
      );
    else seen.set(key, fragment);
  }
}

/** A fragment's config is no secret: a module in it takes no sensitiveEnv. */
function checkFragment(fragment: Fragment, sink: IssueSink, stack: Construct): void {
  machineChecks.each?.(fragment, sink, stack);
  for (const module of fragment.modules) {
    for (const key of module.sensitiveEnvKeys) {
      sink.error(
        module,
        key in module.sensitiveEnv ? `sensitiveEnv.${key}` : `env.${key}`,
        'fragment-secret-env',
        `${key} is a secret, and a fragment's config is readable by every machine (and organization) that imports it`,
        'declare this module on the machines that need the secret instead of in the fragment',
      );
    }
  }
}

registerChecks<Fragment>(FRAGMENT_KIND, { acrossStack: checkFragmentNames, each: checkFragment });

const fragmentTagForms = {
  fragment_id: propForm(
    z.union([propSchemas.text, propSchemas.construct<IFragment>(FRAGMENT_KIND, 'expected a Fragment or a fragment id')]),
    {
      prop: 'fragment',
      synthesize: (fragment: IFragment | string) => (typeof fragment === 'string' ? fragment : fragment.fragmentId),
    },
  ),
} as const;

/** Properties of a {@link FragmentTag}: its `fragment` (a Fragment or a fragment id), `tag`, and `revision` (default: the revision its Fragment's apply saved). */
export type FragmentTagProps = KindProps<typeof fragmentTagResource.attributes, typeof fragmentTagForms>;

/**
 * A tag of a fragment (`stable`), naming one of its revisions: machines importing the
 * fragment at the tag run that revision. Given a Fragment and no `revision`, the tag names
 * the revision that fragment's apply saved, so it moves with every change of the fragment.
 */
export class FragmentTag extends kindConstruct(fragmentTagResource, {
  constructName: 'FragmentTag',
  forms: fragmentTagForms,
  ids: { tagId: 'id' },
}) {
  /** Whether x is a FragmentTag (of any copy of this library). */
  static isFragmentTag(x: unknown): x is FragmentTag {
    return constructTypeOf(x) === FragmentTag.tfResourceType;
  }

  constructor(scope: Construct, id: string, props: FragmentTagProps) {
    super(scope, id, props);
    const fragment = this.fragment;
    if (typeof fragment !== 'string')
      addDeclaredTag(fragment, { tag: this.tag, address: () => `${this.terraformResourceType}.${this.friendlyUniqueId}` });
  }

  protected override synthesizeAttributes(): Record<string, unknown> {
    const attributes = super.synthesizeAttributes();
    const fragment = this.fragment;
    if (attributes.revision === undefined && typeof fragment !== 'string') return { ...attributes, revision: fragment.revision };
    return attributes;
  }
}

/** Tags of one fragment: unique names. */
function checkFragmentTags(tags: readonly FragmentTag[], sink: IssueSink, stack: Construct): void {
  const seen = new Map<string, FragmentTag>();
  for (const tag of tags) {
    const fragment = tag.fragment;
    if (typeof fragment !== 'string' && TerraformStack.of(fragment) !== stack) {
      sink.error(
        tag,
        'fragment',
        'fragment-other-stack',
        `fragment ${fragment.node.path} belongs to another stack`,
        'declare the tag in the stack of its Fragment, or pass the fragment id',
      );
    }
    const key = `${typeof fragment === 'string' ? fragment : fragment.node.path}\u0000${tag.tag}`;
    const first = seen.get(key);
    if (first)
      sink.error(
        tag,
        'tag',
        'duplicate-fragment-tag',
        `tag "${tag.tag}" of this fragment is also declared by ${first.node.path}`,
        'a tag names one revision: keep one of them',
      );
    else seen.set(key, tag);
  }
}

registerChecks<FragmentTag>(FragmentTag.tfResourceType, { acrossStack: checkFragmentTags });
