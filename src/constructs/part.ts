import type { Acknowledgment } from '../domain/certainty';
import type { Construct } from 'constructs';
import { z } from 'zod';
import type { MachineConfig } from '../domain';
import { FleetformError } from '../domain/errors';
import { TerraformResource } from './cdk';
import { registerChecks, type IssueSink } from './checks';
import { overridePath } from './config-overrides';
import { addFragmentImport, tagDependencies, withDependencies, type IFragment, type UseFragmentOptions } from './fragment-imports';
import { bumpGeneration } from './generation';
import { constructTypeOf, markConstructType, markConstructTypeOfClass } from './construct-types';
import { logicalIdFor } from './logical-id';
import { acknowledgmentsPropSchema, declareConfigSections, machineConfigPropsShape, type MachineConfigProps } from './machine';
import { machineConfigJson, machineParts } from './machine-config';
import type { IMachine, IModularResource, IModule, IPackage } from './machine-parts';
import { enclosingMachine, PART_KIND } from './machine-scope';
import { machineChecks, machineSynthesis } from './machine-synthesis';
import { sectionsOf } from './machine-sections';
import { checkProps, propSchemas } from './props';
import { registerFleetConstruct } from './registry';
import { useFragmentOptionsSchema } from './use-fragment';

/** Properties of a {@link Part}: its name and the settings of its config, as a machine's main part takes them. */
export interface PartProps extends MachineConfigProps {
  /**
   * Name of the part, unique in its machine.
   * @default the construct id
   */
  readonly name?: string;
  /** Certain failures of this part's config left so on purpose, as a {@link Machine}'s `acknowledged`. */
  readonly acknowledged?: readonly Acknowledgment[];
}

/** The run-time check of {@link PartProps}: strict, without coercion. */
export const partPropsSchema = z.strictObject({
  // An empty name is reported by the app's analysis, with duplicate names.
  name: propSchemas.text.optional(),
  acknowledged: acknowledgmentsPropSchema.optional(),
  ...machineConfigPropsShape,
});

/**
 * A part of a {@link Machine} other than its main one (a controller on a computer of its
 * own, a camera rig), with its own config: one `fleetform_machine_part` resource. It is
 * declared inside its machine (`new Part(machine, 'arm-controller', {...})`), and the
 * {@link Module}s, {@link ModularResource}s, {@link Remote}s, ... declared inside it make
 * its config exactly as those declared in a machine make the main part's. Its machine's
 * own config stays the main part's.
 */
export class Part extends TerraformResource implements IMachine {
  /** The Terraform resource type. */
  static readonly tfResourceType = PART_KIND;

  /** Whether x is a Part (of any copy of this library). */
  static isPart(x: unknown): x is Part {
    return constructTypeOf(x) === PART_KIND;
  }

  /** Name of the part. */
  readonly name: string;
  /** The machine this part belongs to. */
  readonly machine: IMachine;
  private readonly acknowledgedFailures: Acknowledgment[];

  constructor(scope: Construct, id: string, props: PartProps = {}) {
    super(scope, id, { terraformResourceType: Part.tfResourceType });
    markConstructType(this, PART_KIND);
    checkProps(this, 'Part', partPropsSchema, props);
    const machine = enclosingMachine(this);
    if (machine === undefined || constructTypeOf(machine) !== 'machine') {
      throw new FleetformError('a Part must be declared inside a Machine', {
        path: this.node.path,
        hint: `pass the machine (or a construct inside it) as the scope: new Part(machine, '${id}', {...})${machine ? `, not ${machine.node.path}` : ''}`,
      });
    }
    this.overrideLogicalId(logicalIdFor(this));
    this.machine = machine;
    this.name = props.name ?? id;
    this.acknowledgedFailures = [...(props.acknowledged ?? [])];
    declareConfigSections(this, props);
    registerFleetConstruct(this);
  }

  /** Acknowledges a certain failure of this part's config, as Machine.acknowledge does of the main part's. */
  acknowledge(acknowledgment: Acknowledgment): this {
    this.acknowledgedFailures.push({ code: acknowledgment.code, path: acknowledgment.path, reason: acknowledgment.reason });
    bumpGeneration();
    return this;
  }

  /** The certain failures acknowledged. */
  get acknowledgments(): readonly Acknowledgment[] {
    return this.acknowledgedFailures;
  }

  /** A part lives where its machine does. */
  get locationId(): string | undefined {
    return this.machine.locationId;
  }

  /** The id of the machine the part belongs to, known after apply. */
  get machineId(): string {
    return this.machine.machineId;
  }

  /** The part id the service assigns, known after apply. */
  get partId(): string {
    return this.getStringAttribute('id');
  }

  /** The modules declared inside this part, in declaration order. */
  get modules(): IModule[] {
    return machineParts(this).modules;
  }

  /** The modular resources declared inside this part, in declaration order. */
  get resources(): IModularResource[] {
    return machineParts(this).resources;
  }

  /** The packages declared inside this part, in declaration order. */
  get packages(): IPackage[] {
    return machineParts(this).packages;
  }

  /** Sets a value in this part's config at a dotted path after everything typed, or removes it with `undefined` (see Machine.addConfigOverride). */
  addConfigOverride(path: string, value: unknown): this {
    sectionsOf(this).overrides.push({ path: overridePath(path, this.node.path), value });
    bumpGeneration();
    return this;
  }

  /** Imports a fragment into this part's config, as Machine.useFragment does into the main part's. */
  useFragment(fragment: IFragment | string, options: UseFragmentOptions = {}): this {
    checkProps(this, 'useFragment', useFragmentOptionsSchema, options);
    addFragmentImport(this, fragment, options);
    bumpGeneration();
    return this;
  }

  /** The config document this part gives, secret env entries included. */
  toMachineConfig(): MachineConfig {
    return JSON.parse(machineConfigJson(this)) as MachineConfig;
  }

  protected override synthesizeAttributes(): Record<string, unknown> {
    // Its name, config, secret env entries and secrets by reference, as its machine's main part gives them.
    const { name, config, secret_env, secrets, acknowledged } = machineSynthesis(this).attributes;
    const attributes: Record<string, unknown> = { machine_id: this.machine.machineId, name, config };
    if (secret_env !== undefined) attributes.secret_env = { ...(secret_env as object) };
    if (secrets !== undefined) attributes.secrets = { ...(secrets as object) };
    if (acknowledged !== undefined) attributes.acknowledged = { ...(acknowledged as object) };
    return attributes;
  }

  override toTerraform(): Record<string, unknown> {
    return withDependencies(super.toTerraform(), this.terraformResourceType, this.friendlyUniqueId, tagDependencies(this));
  }
}

markConstructTypeOfClass(Part, PART_KIND);

/** Part names: not empty, unique in their machine. */
function checkPartNames(parts: readonly Part[], sink: IssueSink): void {
  const seen = new Map<string, Part>();
  for (const part of parts) {
    if (part.name.trim() === '') {
      sink.error(part, 'name', 'part-name', 'part name is empty', 'name the part, or leave name out to use the construct id');
      continue;
    }
    const key = `${part.machine.node.path}\u0000${part.name}`;
    const first = seen.get(key);
    if (first)
      sink.error(
        part,
        'name',
        'duplicate-part-name',
        `part name "${part.name}" is also used by ${first.node.path}`,
        'part names are unique in their machine; rename one',
      );
    else seen.set(key, part);
  }
}

registerChecks<Part>(PART_KIND, { acrossStack: checkPartNames, each: (part, sink, stack) => machineChecks.each?.(part, sink, stack) });
