import { Construct } from 'constructs';
import type { ModularResource as ModularResourceConfig } from '../domain';
import { resourceListOf, type ResourceListName } from '../domain/config';
import type { JsonObject } from './json-value';
import { constructTypeOf, markConstructType, markConstructTypeOfClass } from './construct-types';
import type { IMachine, IModularResource } from './machine-parts';
import { owningMachine } from './machine-scope';
import { registerChecks } from './checks';
import { machinePartChecks } from './machine-checks';
import { registerFleetConstruct } from './registry';
import { givesCheckedEntries, sharesConfigEntries } from './machine-config';
import { checkProps, propSchemas } from './props';
import { z } from 'zod';
import { normalApi, normalModel } from '../domain/resource-forms';
import type { Frame, LogConfiguration, ServiceConfig } from '../domain/config-language';
import { overridePath, withOverrides, type ConfigOverride } from './config-overrides';

/** Properties of a {@link ModularResource}. */
export interface ModularResourceProps {
  /**
   * Name of this resource on the machine (unique per API).
   * @default the construct id
   */
  readonly name?: string;
  /**
   * API triplet `<namespace>:<component|service>:<api-name>`, e.g. `rdk:component:sensor`.
   * Its middle part decides whether the resource is listed under `components` or `services`.
   */
  readonly api: string;
  /**
   * Model triplet `<namespace>:<module-name>:<model-name>`; its prefix must be the
   * `moduleId` of a module on the same machine. `module.model('hc-sr04')` builds it.
   */
  readonly model: string;
  /**
   * Model-specific attributes (see the module's documentation). String values may use
   * `${environment.NAME}`.
   * @default {}
   */
  readonly attributes?: JsonObject;
  /**
   * Resources of the same machine that must be available first: resources or their names.
   * @default []
   */
  readonly dependsOn?: ReadonlyArray<ModularResource | string>;
  /** The machine keeps the entry but does not build the resource. @default false (none written) */
  readonly disabled?: boolean;
}

/** The run-time check of {@link ModularResourceProps}: strict, without coercion. */
export const modularResourcePropsSchema = z.strictObject({
  name: propSchemas.text.optional(),
  api: propSchemas.text,
  model: propSchemas.text,
  attributes: propSchemas.jsonObject.optional(),
  dependsOn: z
    .array(
      z.union([propSchemas.text, propSchemas.construct<ModularResource>('modular-resource', 'expected a ModularResource or its name')]),
    )
    .optional(),
  disabled: z.boolean().optional(),
}) satisfies z.ZodType<Omit<ModularResourceProps, 'attributes'>>;

/** The dependencies of a resource given none: one list for them all. */
const NO_DEPENDENCIES: ReadonlyArray<ModularResource | string> = Object.freeze([]);

/**
 * A modular resource on a machine: an instance of a module's model, listed under
 * `components` or `services` of the machine config as its API triplet says. Declare it
 * inside a {@link Machine}.
 */
export class ModularResource extends Construct implements IModularResource {
  /** Whether x is a ModularResource (of any copy of this library). */
  static isModularResource(x: unknown): x is ModularResource {
    return constructTypeOf(x) === 'modular-resource';
  }

  /** The machine whose config holds this resource. */
  readonly machine: IMachine;
  /** Name of this resource. */
  readonly name: string;
  /** API triplet. */
  readonly api: string;
  /** Model triplet. */
  readonly model: string;
  /** Attributes as given. */
  readonly attributes: JsonObject;
  /** Dependencies as given: resources or names. */
  readonly dependsOn: ReadonlyArray<ModularResource | string>;
  /** Whether the machine leaves this resource unbuilt; undefined when not given. */
  readonly disabled: boolean | undefined;

  /** For a {@link Component} or {@link Service}: its list and the props as given, written exactly (no defaults added). */
  private readonly declared: { readonly list: ResourceListName; readonly props: ResourceProps } | undefined;
  /** Keys set or removed in this resource's entry after the typed ones: see addConfigOverride. */
  private readonly overrides: ConfigOverride[] = [];

  constructor(scope: Construct, id: string, props: ModularResourceProps);
  /** @internal A builtin-or-modular resource of a given list, written in the form given. */
  constructor(scope: Construct, id: string, props: ResourceProps, list: ResourceListName);
  constructor(scope: Construct, id: string, props: ModularResourceProps | ResourceProps, list?: ResourceListName) {
    super(scope, id);
    markConstructType(this, 'modular-resource');
    const label = list === undefined ? 'ModularResource' : list === 'services' ? 'Service' : 'Component';
    checkProps(this, label, list === undefined ? modularResourcePropsSchema : resourcePropsSchema, props);
    this.machine = owningMachine(this, label);
    this.name = props.name ?? id;
    if (list === undefined) {
      this.declared = undefined;
      this.api = props.api as string;
      this.model = props.model as string;
    } else {
      const given = props as ResourceProps;
      this.declared = { list, props: given };
      const written = { api: given.api, type: given.type, namespace: given.namespace, model: given.model };
      this.api = normalApi(written, list);
      this.model = normalModel(written, list);
    }
    this.attributes = { ...props.attributes };
    this.dependsOn = props.dependsOn === undefined ? NO_DEPENDENCIES : [...props.dependsOn];
    this.disabled = props.disabled;
    registerFleetConstruct(this);
  }

  /** `services` for a service API, else `components` (a malformed API is checked under `components`). */
  get configList(): ResourceListName {
    return this.declared?.list ?? resourceListOf(this.api);
  }

  /**
   * Sets a key of this resource's config entry (a dotted path into it) after the typed ones,
   * or removes it with `undefined`: for keys no prop declares (`_comment`, a newer field).
   */
  addConfigOverride(path: string, value: unknown): this {
    this.overrides.push({ path: overridePath(path, this.node.path), value });
    return this;
  }

  /** The entry as declared by a Component or Service: only what was given, in the form given. */
  private declaredEntry(): ModularResourceConfig | undefined {
    if (this.declared === undefined) return undefined;
    const p = this.declared.props;
    const entry: ModularResourceConfig = { name: this.name };
    if (p.api !== undefined) entry.api = p.api;
    if (p.type !== undefined) entry.type = p.type;
    if (p.namespace !== undefined) entry.namespace = p.namespace;
    if (p.model !== undefined) entry.model = p.model;
    if (p.attributes !== undefined) entry.attributes = { ...p.attributes };
    if (p.dependsOn !== undefined) entry.depends_on = this.dependsOnNames;
    if (p.frame !== undefined) entry.frame = p.frame;
    if (p.serviceConfigs !== undefined) entry.service_configs = [...p.serviceConfigs];
    if (p.logConfiguration !== undefined) entry.log_configuration = p.logConfiguration;
    if (p.disabled !== undefined) entry.disabled = p.disabled;
    return entry;
  }

  /** @internal The entry with this resource's overrides applied. */
  withOwnOverrides(entry: ModularResourceConfig): ModularResourceConfig {
    return withOverrides(entry, this.overrides);
  }

  /** @internal The declared entry of a Component or Service, overrides applied; undefined for a ModularResource without overrides. */
  exactEntry(): ModularResourceConfig | undefined {
    const declared = this.declaredEntry();
    if (declared !== undefined) return this.withOwnOverrides(declared);
    return this.overrides.length > 0 ? this.withOwnOverrides(configEntry(this, { ...this.attributes }, this.dependsOnNames)) : undefined;
  }

  /** @internal Whether this resource's entry is made of its props alone (a ModularResource without overrides), each checked as its list's schema would. */
  get entryOfCheckedProps(): boolean {
    return this.declared === undefined && this.overrides.length === 0;
  }

  /** Names of the dependencies, in the order given. */
  get dependsOnNames(): string[] {
    return this.dependsOn.map((d) => (typeof d === 'string' ? d : d.name));
  }

  /** This resource's entry of the machine config. */
  toConfig(): ModularResourceConfig {
    return this.exactEntry() ?? configEntry(this, { ...this.attributes }, this.dependsOnNames);
  }
}

function configEntry(resource: ModularResource, attributes: JsonObject, dependsOn: string[]): ModularResourceConfig {
  const entry: ModularResourceConfig = { name: resource.name, api: resource.api, model: resource.model, attributes, depends_on: dependsOn };
  if (resource.disabled !== undefined) entry.disabled = resource.disabled;
  return entry;
}

/** The depends_on of the shared entries of resources without dependencies: one list for them all. */
const NO_NAMES: string[] = Object.freeze([]) as unknown as string[];

markConstructTypeOfClass(ModularResource, 'modular-resource');
registerChecks('modular-resource', machinePartChecks);

// A ModularResource's name, API and model are text, its attributes an object, its dependencies names: its list's form.
givesCheckedEntries<ModularResource>(ModularResource.prototype.toConfig, (resource) => resource.entryOfCheckedProps);

// What toConfig returns, sharing the attributes: the machine config only reads them.
sharesConfigEntries<ModularResource, ModularResourceConfig>(
  ModularResource.prototype.toConfig,
  (resource) =>
    resource.exactEntry() ??
    configEntry(resource, resource.attributes, resource.dependsOn.length === 0 ? NO_NAMES : resource.dependsOnNames),
);

/**
 * Properties of a {@link Component} or {@link Service}: a builtin resource (a bare model
 * name such as `webcam`, or none for a builtin service) or a module's. Only what is given
 * is written to the config, in the form given.
 */
export interface ResourceProps {
  /**
   * Name of this resource on the machine (unique per API).
   * @default the construct id
   */
  readonly name?: string;
  /** API triplet, e.g. `rdk:component:camera`. Give this, or `type` (with `namespace`). */
  readonly api?: string;
  /** The older form of the API: its last part, e.g. `camera`; read only without `api`. */
  readonly type?: string;
  /** With `type`: the API's namespace. @default rdk */
  readonly namespace?: string;
  /** Model triplet, or a builtin model's bare name (`webcam`, `fake`). @default for a service, its builtin model */
  readonly model?: string;
  /** Model-specific attributes. @default none written */
  readonly attributes?: JsonObject;
  /** Resources of the same machine that must be available first. @default none written */
  readonly dependsOn?: ReadonlyArray<ModularResource | string>;
  /** Where the component sits in the frame system (motion planning). */
  readonly frame?: Frame;
  /** Config for other services, e.g. data capture: `[{ type: 'data_manager', attributes: { capture_methods: [...] } }]`. */
  readonly serviceConfigs?: readonly ServiceConfig[];
  /** This resource's log level: `{ level: 'debug' }`. */
  readonly logConfiguration?: LogConfiguration;
  /** The machine keeps the entry but does not build the resource (`resource disable`). @default none written */
  readonly disabled?: boolean;
}

/** The run-time check of {@link ResourceProps}. */
export const resourcePropsSchema = z.strictObject({
  name: propSchemas.text.optional(),
  api: propSchemas.text.optional(),
  type: propSchemas.text.optional(),
  namespace: propSchemas.text.optional(),
  model: z.string().optional(),
  attributes: propSchemas.jsonObject.optional(),
  dependsOn: z
    .array(z.union([propSchemas.text, propSchemas.construct<ModularResource>('modular-resource', 'expected a resource or its name')]))
    .optional(),
  frame: propSchemas.jsonObject.optional(),
  serviceConfigs: z.array(propSchemas.jsonObject).optional(),
  logConfiguration: propSchemas.jsonObject.optional(),
  disabled: z.boolean().optional(),
});

/** A component of a machine: builtin (`model: 'webcam'`) or a module's; listed under `components`. */
export class Component extends ModularResource {
  constructor(scope: Construct, id: string, props: ResourceProps) {
    super(scope, id, props, 'components');
  }
}

/** A service of a machine: builtin (data manager, motion, navigation: no model needed) or a module's; listed under `services`. */
export class Service extends ModularResource {
  constructor(scope: Construct, id: string, props: ResourceProps) {
    super(scope, id, props, 'services');
  }
}
