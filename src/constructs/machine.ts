import type { Acknowledgment } from '../domain/certainty';
import { dependable, TerraformResource, TerraformStack } from './cdk';
import type { Construct } from 'constructs';
import type { MachineConfig } from '../domain';
import { FleetformError } from '../domain/errors';
import { constructTypeOf, markConstructType, markConstructTypeOfClass } from './construct-types';
import { logicalIdFor } from './logical-id';
import { machineConfigJson, machineParts } from './machine-config';
import { enclosingMachine } from './machine-scope';
import type { IMachine, IModularResource, IModule, IPackage, ITrainedModelSource } from './machine-parts';
import { registerChecks } from './checks';
import { machineChecks, machineSynthesis } from './machine-synthesis';
import { registerFleetConstruct } from './registry';
import { checkProps, propSchemas } from './props';
import { camelShape, machineAttributes } from '../domain/resource-attributes';
import { z } from 'zod';
import { analysisPropsSchema, type AnalysisProps } from './metric';
import { machineHealthAnalysis } from './machine-health-analysis';
import type { HealthAnalysisAttribute } from '../domain/health-analysis';
import { plainResourceFragment, usesNoResourceFeatures } from './plain-resource';
import { locationIdOf, locationReference, type ILocation } from './location';
import { deployedModelPackage, type DeployModelOptions, type Package } from './package';
import { addFragmentImport, tagDependencies, withDependencies, type IFragment, type UseFragmentOptions } from './fragment-imports';
import { useFragmentOptionsSchema } from './use-fragment';
import { bumpGeneration } from './generation';
import { declareEmptyLists, emptyListsSchema, sectionsOf } from './machine-sections';
import type { EmptyListSection } from '../domain/config';
import { overridePath } from './config-overrides';
import { CONFIG_LANGUAGE, PROP_SECTIONS, type PropSection } from '../domain/config-language';

/** Properties of a {@link Machine}. */
export interface MachineProps extends MachineConfigProps {
  /**
   * Name of the machine in its location.
   * @default the construct id
   */
  readonly name?: string;
  /**
   * Location the machine lives in: a {@link Location} of the same stack, or the id of an
   * existing location. Give this or `locationId`, not both.
   * @default the provider's `locationId`, else the only location of the organization
   */
  readonly location?: ILocation | string;
  /**
   * Id of the location the machine lives in (the same as `location` given an id).
   * @default the provider's `locationId`, else the only location of the organization
   */
  readonly locationId?: string;
  /**
   * Makes create and update (under Terraform, and under `fleetform apply`) wait until the
   * machine runs its new config with every module and resource ready, and stays so for
   * `settle`; not within `timeout` is an error. Durations like `10m`, `1m30s`, `500ms`.
   * Its `analysis` then measures what the machine does, as a {@link Rollout}'s does, with
   * bounds (`min`, `max`) only: a machine alone has no baseline. A failed or inconclusive
   * analysis is an error, so machines chained with `dependsOn` stop on evidence.
   * @default no wait
   */
  readonly healthGate?: { readonly timeout?: string; readonly settle?: string; readonly analysis?: readonly AnalysisProps[] };
  /**
   * Certain failures of this machine's config left so on purpose (a machine broken when
   * adopted, or on purpose): each names the finding's code and path (entries by name,
   * `components.sensor-1.model`) and why. That finding is then a warning, not an error.
   * @default none: every certain failure is an error
   */
  readonly acknowledged?: readonly Acknowledgment[];
}

type Language = typeof CONFIG_LANGUAGE;

/** A section prop's type: the section as its schema reads it, a list read-only. */
type SectionPropValue<S extends z.ZodType> = z.output<S> extends ReadonlyArray<infer E> ? readonly E[] : z.output<S>;

/** A prop per section the config language declares one for (`network`, `jobs`, `enableWebProfile`, ...), typed by its schema. */
export type ConfigSectionProps = {
  readonly [K in PropSection as Language[K]['prop']]?: SectionPropValue<Language[K]['schema']>;
};

/**
 * The settings of a machine's config beyond its modules and resources: its main part's, or
 * another {@link Part}'s. Each section prop (see `CONFIG_LANGUAGE`, `src/domain/config-language.ts`)
 * is written under its key as given; secrets in it (API keys, the hotspot password) are
 * masked in plans, state and logs, but for environment placeholders.
 */
export interface MachineConfigProps extends ConfigSectionProps {
  /**
   * The lists the config holds even when nothing fills them, written `[]`: any of
   * `components`, `services`, `modules`, `packages`, `remotes`, `processes`. A list with
   * entries is always written; any other list without entries is left out of the config.
   * @default ['components', 'services', 'modules']
   */
  readonly emptyLists?: readonly EmptyListSection[];
}

/** The run-time check of a section prop: the JSON form its schema takes (the section's own rules are checked with the config). */
function sectionPropCheck(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodBoolean) return z.boolean();
  if (schema instanceof z.ZodString) return propSchemas.text;
  if (schema instanceof z.ZodNumber) return z.number();
  if (schema instanceof z.ZodArray) return z.array(sectionPropCheck(schema.element as z.ZodType));
  if (schema instanceof z.ZodObject || schema instanceof z.ZodRecord) return propSchemas.jsonObject;
  return z.unknown();
}

/** The run-time check of {@link MachineConfigProps}, to spread in a strict object. */
export const machineConfigPropsShape: Readonly<Record<string, z.ZodType>> = {
  ...Object.fromEntries(PROP_SECTIONS.map((s) => [s.prop, sectionPropCheck(s.schema).optional()])),
  emptyLists: emptyListsSchema.optional(),
};

/** Declares the config sections the props give, in the owner's (a machine's or a part's) config, in the order of the language. */
export function declareConfigSections(owner: Construct, props: MachineConfigProps): void {
  const given = props as Readonly<Record<string, unknown>>;
  for (const { key, prop } of PROP_SECTIONS) if (given[prop] !== undefined) sectionsOf(owner).settings.set(key, given[prop]);
  declareEmptyLists(owner, props.emptyLists);
}

/** The run-time check of acknowledgments given as props: code, path and reason, each given. */
export const acknowledgmentsPropSchema = z.array(
  z.strictObject({ code: propSchemas.text.min(1), path: propSchemas.text.min(1), reason: propSchemas.text.min(1) }),
);

/** The run-time check of {@link MachineProps}: strict, without coercion. */
export const machinePropsSchema = z.strictObject({
  ...camelShape(machineAttributes, ['location_id']),
  // An empty name is reported by the app's analysis, with duplicate names.
  name: propSchemas.text.optional(),
  location: locationReference.optional(),
  healthGate: z
    .strictObject({
      timeout: propSchemas.text.optional(),
      settle: propSchemas.text.optional(),
      analysis: z.array(analysisPropsSchema).min(1).optional(),
    })
    .optional(),
  acknowledged: acknowledgmentsPropSchema.optional(),
  ...machineConfigPropsShape,
});

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
    return constructTypeOf(x) === 'machine';
  }

  /** Name of the machine. */
  readonly name: string;
  /** Location id, when given: a reference to a Location's id, or the id given. */
  readonly locationId: string | undefined;
  /** The jobs and uploads whose models this machine deploys (it depends on each once); none kept until one is deployed. */
  private modelSources: Set<ITrainedModelSource> | undefined;
  /** The health gate create and update wait on (`timeout`, `settle`), when given. */
  readonly healthGate: Readonly<Record<string, string>> | undefined;
  /** The analyses its health gate runs, as the `health_analysis` attribute holds them, when given. */
  readonly healthAnalysis: HealthAnalysisAttribute | undefined;
  /** The certain failures acknowledged, in the order given. */
  private readonly acknowledgedFailures: Acknowledgment[];

  constructor(scope: Construct, id: string, props: MachineProps = {}) {
    super(scope, id, { terraformResourceType: Machine.tfResourceType });
    markConstructType(this, 'machine');
    checkProps(this, 'Machine', machinePropsSchema, props);
    const outer = enclosingMachine(this);
    if (outer !== undefined) {
      throw new FleetformError('a Machine cannot be declared inside another Machine', {
        path: this.node.path,
        hint: `declare it in the stack (or a construct of its own) instead of inside ${outer.node.path}`,
      });
    }
    if (props.location !== undefined && props.locationId !== undefined) {
      throw new FleetformError('a Machine takes location or locationId, not both', {
        path: `${this.node.path}.location`,
        hint: 'keep one of them',
      });
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
    const { analysis, ...gate } = props.healthGate ?? {};
    this.healthGate = props.healthGate === undefined ? undefined : { ...gate };
    this.healthAnalysis = analysis === undefined ? undefined : machineHealthAnalysis(analysis, this.node.path);
    this.acknowledgedFailures = [...(props.acknowledged ?? [])];
    declareConfigSections(this, props);
    registerFleetConstruct(this);
  }

  /**
   * Sets a value in this machine's config at a dotted path (`ui_folder`,
   * `network.sessions.heartbeat_window`, `components.0._comment`) after everything typed,
   * or removes it with `undefined`: for whatever no construct or prop declares, so any
   * config can be declared exactly.
   */
  addConfigOverride(path: string, value: unknown): this {
    sectionsOf(this).overrides.push({ path: overridePath(path, this.node.path), value });
    bumpGeneration();
    return this;
  }

  /**
   * Acknowledges a certain failure of this machine's config (see {@link MachineProps.acknowledged}):
   * `machine.acknowledge({ code: 'model-module-mismatch', path: 'components.sensor-1.model', reason: 'module retired' })`.
   */
  acknowledge(acknowledgment: Acknowledgment): this {
    this.acknowledgedFailures.push({ code: acknowledgment.code, path: acknowledgment.path, reason: acknowledgment.reason });
    bumpGeneration();
    return this;
  }

  /** The certain failures acknowledged. */
  get acknowledgments(): readonly Acknowledgment[] {
    return this.acknowledgedFailures;
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

  /** The packages declared inside this machine, in declaration order. */
  get packages(): IPackage[] {
    return machineParts(this).packages;
  }

  /**
   * Deploys the model a training job makes: an `ml_model` package of this machine at the
   * job's model version (`package.path` for attributes). The machine's change waits for the
   * job: apply writes it once that model version exists.
   */
  deployModel(job: ITrainedModelSource, options: DeployModelOptions = {}): Package {
    const pkg = deployedModelPackage(this, job, options);
    this.modelSources ??= new Set();
    if (!this.modelSources.has(job)) {
      this.modelSources.add(job);
      this.dependsOn = [...(this.dependsOn ?? []), dependable(job)];
    }
    return pkg;
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
    return attributes.secret_env === undefined
      ? { ...attributes }
      : { ...attributes, secret_env: { ...(attributes.secret_env as object) } };
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

markConstructTypeOfClass(Machine, 'machine');
registerChecks('machine', machineChecks);

/** A machine's attributes as synthesized, computed once per generation (shared: do not mutate). */
function machineAttributesOf(machine: Machine): Readonly<Record<string, unknown>> {
  return machineSynthesis(machine).attributes;
}
