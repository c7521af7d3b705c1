import type { IConstruct } from 'constructs';
import { z } from 'zod';
import { locationResource } from '../domain/resource-attributes';
import { TerraformStack } from './cdk';
import { registerChecks } from './checks';
import { kindConstruct, propForm, type KindProps } from './kind-construct';
import { constructTypeOf } from './construct-types';
import { propSchemas } from './props';

/** A location as other constructs take it: a {@link Location} (of any copy of this library). */
export interface ILocation extends IConstruct {
  /** The location id the service assigns: a reference resolved at apply. */
  readonly locationId: string;
}

/** The `location_id` of a location given as a Location or as an id. */
export function locationIdOf(location: ILocation | string): string {
  return typeof location === 'string' ? location : location.locationId;
}

/** A location prop: a Location or the id of an existing location. */
export const locationReference = z.union([
  propSchemas.text,
  propSchemas.construct<ILocation>(locationResource.type, 'expected a Location or a location id'),
]);

const locationForms = {
  // An empty name is reported by the app's analysis.
  name: propForm(propSchemas.text.optional(), { default: (constructId: string) => constructId }),
  parent_location_id: propForm(locationReference.optional(), {
    prop: 'parent',
    synthesize: locationIdOf,
  }),
} as const;

/** Properties of a {@link Location}: `name` defaults to the construct id; `parent` is a Location of the same stack or a location id (none: a top-level location). */
export type LocationProps = KindProps<typeof locationResource.attributes, typeof locationForms>;

/** A location of the organization, where machines live: one `fleetform_location` resource; `locationId` is the id the service assigns. */
export class Location extends kindConstruct(locationResource, {
  constructName: 'Location',
  forms: locationForms,
  ids: { locationId: 'id' },
}) {
  /** Whether x is a Location (of any copy of this library). */
  static isLocation(x: unknown): x is Location {
    return constructTypeOf(x) === Location.tfResourceType;
  }
}

/** The run-time check of {@link LocationProps}: strict, without coercion. */
export const locationPropsSchema = Location.propsSchema;

// Names of locations may repeat (the service tells them apart by id), even side by side.
registerChecks<Location>(Location.tfResourceType, {
  acrossStack: 'none',
  each(location, sink, stack) {
    if (location.name.trim() === '')
      sink.error(
        location,
        'name',
        'location-name',
        'location name is empty',
        'name the location, or leave name out to use the construct id',
      );
    const parent = location.parent;
    if (parent === undefined || typeof parent === 'string') return;
    if (parent === location)
      sink.error(location, 'parent', 'location-parent-self', 'a location cannot sit inside itself', 'give another location as parent');
    else if (TerraformStack.of(parent) !== stack)
      sink.error(
        location,
        'parent',
        'location-other-stack',
        `parent location ${parent.node.path} belongs to another stack`,
        'declare it in this stack, or pass its id as a string',
      );
  },
});
