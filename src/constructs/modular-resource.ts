import { Construct } from 'constructs';
import type { ModularResource as ModularResourceConfig } from '../domain';
import { resourceListOf, type ResourceListName } from '../domain/config';
import type { JsonObject } from './json-value';
import { kindOf, markKind, markKindOfClass } from './kinds';
import type { IMachine, IModularResource } from './machine-parts';
import { owningMachine } from './machine-scope';
import { registerChecks } from './checks';
import { machinePartChecks } from './machine-checks';
import { registerFleetConstruct } from './registry';
import { sharesConfigEntries } from './machine-config';
import { checkProps, propSchemas } from './props';
import { z } from 'zod';

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
}

/** The run-time check of {@link ModularResourceProps}: strict, without coercion. */
export const modularResourcePropsSchema = z.strictObject({
  name: propSchemas.text.optional(),
  api: propSchemas.text,
  model: propSchemas.text,
  attributes: propSchemas.jsonObject.optional(),
  dependsOn: z.array(z.union([propSchemas.text, propSchemas.construct<ModularResource>('modular-resource', 'expected a ModularResource or its name')])).optional(),
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
    return kindOf(x) === 'modular-resource';
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

  constructor(scope: Construct, id: string, props: ModularResourceProps) {
    super(scope, id);
    markKind(this, 'modular-resource');
    checkProps(this, 'ModularResource', modularResourcePropsSchema, props);
    this.machine = owningMachine(this, 'ModularResource');
    this.name = props.name ?? id;
    this.api = props.api;
    this.model = props.model;
    this.attributes = { ...props.attributes };
    this.dependsOn = props.dependsOn === undefined ? NO_DEPENDENCIES : [...props.dependsOn];
    registerFleetConstruct(this);
  }

  /** `services` for a service API, else `components` (a malformed API is checked under `components`). */
  get configList(): ResourceListName {
    return resourceListOf(this.api);
  }

  /** Names of the dependencies, in the order given. */
  get dependsOnNames(): string[] {
    return this.dependsOn.map((d) => (typeof d === 'string' ? d : d.name));
  }

  /** This resource's entry of the machine config. */
  toConfig(): ModularResourceConfig {
    return configEntry(this, { ...this.attributes }, this.dependsOnNames);
  }
}

function configEntry(resource: ModularResource, attributes: JsonObject, dependsOn: string[]): ModularResourceConfig {
  return { name: resource.name, api: resource.api, model: resource.model, attributes, depends_on: dependsOn };
}

/** The depends_on of the shared entries of resources without dependencies: one list for them all. */
const NO_NAMES: string[] = Object.freeze([]) as unknown as string[];

markKindOfClass(ModularResource, 'modular-resource');
registerChecks('modular-resource', machinePartChecks);

// What toConfig returns, sharing the attributes: the machine config only reads them.
sharesConfigEntries<ModularResource, ModularResourceConfig>(ModularResource.prototype.toConfig, (resource) =>
  configEntry(resource, resource.attributes, resource.dependsOn.length === 0 ? NO_NAMES : resource.dependsOnNames),
);
