import { TerraformResource, TerraformStack } from './cdk';
import type { Construct } from 'constructs';
import type { MachineConfig } from '../domain';
import { FleetformError } from '../domain/errors';
import { kindOf, markKind, markKindOfClass } from './kinds';
import { logicalIdFor } from './logical-id';
import { machineConfigJson, machineParts } from './machine-config';
import { synthesizedConfig } from './config-json';
import { enclosingMachine } from './machine-scope';
import type { IMachine, IModularResource, IModule } from './machine-parts';
import { registerChecks } from './checks';
import { machineChecks } from './machine-checks';
import { registerFleetConstruct } from './registry';
import { checkProps, propSchemas } from './props';
import { camelShape, machineAttributes } from '../domain/resource-attributes';
import { z } from 'zod';
import { terraformLiterals } from './terraform-literal';
import { bumpGeneration, perGeneration } from './generation';
import { plainResourceFragment, usesNoResourceFeatures } from './plain-resource';
import { locationIdOf, type Location } from './location';
import { addFragmentImport, tagDependencies, withDependencies, type IFragment, type UseFragmentOptions } from './fragment-imports';
import { useFragmentOptionsSchema } from './use-fragment';

/** Properties of a {@link Machine}. */
export interface MachineProps {
  /**
   * Name of the machine in its location.
   * @default the construct id
   */
  readonly name?: string;
  /**
   * Location the machine lives in: a {@link Location} of the same stack, or the id of an
   * existing location. Give this or `locationId`, not both.
   * @default the provider's `locationId`, else at plan time the only location of the organization
   */
  readonly location?: Location | string;
  /**
   * Id of the location the machine lives in (the same as `location` given an id).
   * @default the provider's `locationId`, else at plan time the only location of the organization
   */
  readonly locationId?: string;
}

/** The run-time check of {@link MachineProps}: strict, without coercion. */
export const machinePropsSchema = z.strictObject({
  ...camelShape(machineAttributes, ['location_id']),
  // An empty name is reported by the app's analysis, with duplicate names.
  name: propSchemas.text.optional(),
  location: z.union([propSchemas.text, propSchemas.construct<Location>('fleetform_location', 'expected a Location or a location id')]).optional(),
}) satisfies z.ZodType<MachineProps>;

/**
 * A machine and its whole configuration: one `fleetform_machine` resource. The
 * {@link Module}s and {@link ModularResource}s declared inside it (directly or in
 * constructs nested in it) become its config's `modules`, `components` and `services`,
 * synthesized as one compact JSON string attribute `config`; the secret env entries of its
 * modules are synthesized apart, in the map `secret_env`.
 */
export class Machine extends TerraformResource implements IMachine {
  /** The Terraform resource type. */
  static readonly tfResourceType = 'fleetform_machine';

  /** Whether x is a Machine (of any copy of this library). */
  static isMachine(x: unknown): x is Machine {
    return kindOf(x) === 'machine';
  }

  /** Name of the machine. */
  readonly name: string;
  /** Location id, when given: a reference to a Location's id, or the id given. */
  readonly locationId: string | undefined;

  constructor(scope: Construct, id: string, props: MachineProps = {}) {
    super(scope, id, { terraformResourceType: Machine.tfResourceType });
    markKind(this, 'machine');
    checkProps(this, 'Machine', machinePropsSchema, props);
    const outer = enclosingMachine(this);
    if (outer !== undefined) {
      throw new FleetformError('a Machine cannot be declared inside another Machine', {
        path: this.node.path,
        hint: `declare it in the stack (or a construct of its own) instead of inside ${outer.node.path}`,
      });
    }
    if (props.location !== undefined && props.locationId !== undefined) {
      throw new FleetformError('a Machine takes location or locationId, not both', { path: `${this.node.path}.location`, hint: 'keep one of them' });
    }
    const location = props.location;
    if (location !== undefined && typeof location !== 'string' && TerraformStack.of(location) !== TerraformStack.of(this)) {
      throw new FleetformError(`location ${location.node.path} belongs to another stack`, {
        path: `${this.node.path}.location`,
        hint: 'declare the Location in this stack, or pass its id as a string',
      });
    }
    this.overrideLogicalId(logicalIdFor(this));
    this.name = props.name ?? id;
    this.locationId = props.location !== undefined ? locationIdOf(props.location) : props.locationId;
    registerFleetConstruct(this);
  }

  /** The machine id the service assigns, known after apply. */
  get machineId(): string {
    return this.getStringAttribute('id');
  }

  /** The modules declared inside this machine, in declaration order. */
  get modules(): IModule[] {
    return machineParts(this).modules;
  }

  /**
   * Imports a fragment into this machine's config (`fragments`, and its `mods` in
   * `fragment_mods`): at a `version` (a revision or tag; the latest otherwise), its entries'
   * names after `prefix`, its `variables` set, overridden by `mods`.
   */
  useFragment(fragment: IFragment | string, options: UseFragmentOptions = {}): this {
    checkProps(this, 'useFragment', useFragmentOptionsSchema, options);
    addFragmentImport(this, fragment, options);
    bumpGeneration();
    return this;
  }

  /** The modular resources declared inside this machine, in declaration order. */
  get resources(): IModularResource[] {
    return machineParts(this).resources;
  }

  /**
   * The config document this machine gives its main part (`components`, `services`,
   * `modules`), secret env entries included: it synthesizes them in `secret_env`, the rest
   * in `config`.
   */
  toMachineConfig(): MachineConfig {
    return JSON.parse(machineConfigJson(this)) as MachineConfig;
  }

  protected override synthesizeAttributes(): Record<string, unknown> {
    const attributes = machineAttributesOf(this);
    // A copy: the attributes are computed once per generation and shared.
    return attributes.secret_env === undefined ? { ...attributes } : { ...attributes, secret_env: { ...(attributes.secret_env as object) } };
  }

  override toMetadata(): Record<string, unknown> {
    const metadata = super.toMetadata();
    // Nothing but undefined entries resolves to {}: so say it at once.
    return Object.values(metadata).every((value) => value === undefined) ? {} : metadata;
  }

  override toTerraform(): Record<string, unknown> {
    return withDependencies(this.ownTerraform(), this.terraformResourceType, this.friendlyUniqueId, tagDependencies(this));
  }

  private ownTerraform(): Record<string, unknown> {
    // A subclass synthesizing attributes of its own gets cdktf's treatment of them.
    const ownAttributes = this.synthesizeAttributes === Machine.prototype.synthesizeAttributes;
    if (!ownAttributes || !usesNoResourceFeatures(this, super.toMetadata())) return super.toTerraform();
    return plainResourceFragment(this, machineAttributesOf(this), this.constructNodeMetadata);
  }
}

markKindOfClass(Machine, 'machine');
registerChecks('machine', machineChecks);

/** A machine's attributes as synthesized, computed once per generation (shared: do not mutate). */
const machineAttributesOf = perGeneration((machine: Machine): Record<string, unknown> => {
  const { configJson, secretEnv } = synthesizedConfig(machine);
  const attributes: Record<string, unknown> = { name: machine.name };
  if (machine.locationId !== undefined) attributes.location_id = machine.locationId;
  attributes.config = configJson;
  if (Object.keys(secretEnv).length > 0) attributes.secret_env = { ...secretEnv };
  return terraformLiterals(attributes);
});
