import { TerraformResource, TerraformStack } from './cdk';
import type { Construct } from 'constructs';
import { registerChecks } from './checks';
import { kindOf, markKind } from './kinds';
import { logicalIdFor } from './logical-id';
import { registerFleetConstruct } from './registry';
import { checkProps, propSchemas } from './props';
import { camelShape, locationAttributes } from '../domain/resource-attributes';
import { z } from 'zod';
import { terraformLiterals } from './terraform-literal';

/** Properties of a {@link Location}. */
export interface LocationProps {
  /**
   * Name of the location.
   * @default the construct id
   */
  readonly name?: string;
  /**
   * The location this one sits in: a {@link Location} of the same stack, or the id of an
   * existing location.
   * @default none: a top-level location of the organization
   */
  readonly parent?: Location | string;
  /**
   * Organization owning the location.
   * @default the provider's `organizationId`, else the only organization the API key sees
   */
  readonly organizationId?: string;
}

/** The run-time check of {@link LocationProps}: strict, without coercion. */
export const locationPropsSchema = z.strictObject({
  ...camelShape(locationAttributes, ['organization_id']),
  // An empty name is reported by the app's analysis.
  name: propSchemas.text.optional(),
  parent: z.union([propSchemas.text, propSchemas.construct<Location>('fleetform_location', 'expected a Location or a location id')]).optional(),
}) satisfies z.ZodType<LocationProps>;

/** A location of the organization, where machines live: one `fleetform_location` resource. */
export class Location extends TerraformResource {
  /** The Terraform resource type. */
  static readonly tfResourceType = 'fleetform_location';

  /** Whether x is a Location (of any copy of this library). */
  static isLocation(x: unknown): x is Location {
    return kindOf(x) === Location.tfResourceType;
  }

  /** Name of the location. */
  readonly name: string;
  /** The location it sits in, when given. */
  readonly parent: Location | string | undefined;
  /** Organization, when given. */
  readonly organizationId: string | undefined;

  constructor(scope: Construct, id: string, props: LocationProps = {}) {
    super(scope, id, { terraformResourceType: Location.tfResourceType });
    markKind(this, Location.tfResourceType);
    checkProps(this, 'Location', locationPropsSchema, props);
    this.overrideLogicalId(logicalIdFor(this));
    this.name = props.name ?? id;
    this.parent = props.parent;
    this.organizationId = props.organizationId;
    registerFleetConstruct(this);
  }

  /** The location id the service assigns: a reference resolved at apply, e.g. `${fleetform_location.lab.id}`. */
  get locationId(): string {
    return this.getStringAttribute('id');
  }

  protected override synthesizeAttributes(): Record<string, unknown> {
    const attributes: Record<string, unknown> = { name: this.name };
    if (this.parent !== undefined) attributes.parent_location_id = locationIdOf(this.parent);
    if (this.organizationId !== undefined) attributes.organization_id = this.organizationId;
    return terraformLiterals(attributes);
  }
}

/** The `location_id` of a location given as a Location or as an id. */
export function locationIdOf(location: Location | string): string {
  return typeof location === 'string' ? location : location.locationId;
}

// Names of locations may repeat (the service tells them apart by id), even side by side.
registerChecks<Location>(Location.tfResourceType, {
  acrossStack: 'none',
  each(location, sink, stack) {
    if (location.name.trim() === '') sink.error(location, 'name', 'location-name', 'location name is empty', 'name the location, or leave name out to use the construct id');
    const parent = location.parent;
    if (parent === undefined || typeof parent === 'string') return;
    if (parent === location) sink.error(location, 'parent', 'location-parent-self', 'a location cannot sit inside itself', 'give another location as parent');
    else if (TerraformStack.of(parent) !== stack) sink.error(location, 'parent', 'location-other-stack', `parent location ${parent.node.path} belongs to another stack`, 'declare it in this stack, or pass its id as a string');
  },
});
