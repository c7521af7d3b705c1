import { App, TerraformStack } from 'cdktf';
import { Location, Machine } from '../../src';
import { errorsOf, newStack, resourceOf, synth } from './helpers';

describe('Location', () => {
  test('synthesizes a fleetform_location with its name, parent and organization', () => {
    const { stack } = newStack();
    new Location(stack, 'site', { name: 'Warehouse', parent: 'loc-1', organizationId: 'org-1' });
    expect(resourceOf(synth(stack), 'fleetform_location', 'site')).toEqual({
      name: 'Warehouse',
      parent_location_id: 'loc-1',
      organization_id: 'org-1',
    });
  });

  test('name defaults to the construct id; a top-level location has no parent', () => {
    const { stack } = newStack();
    new Location(stack, 'site');
    expect(resourceOf(synth(stack), 'fleetform_location', 'site')).toEqual({ name: 'site' });
  });

  test('a Location as parent, or as a machine location, is a reference to its id', () => {
    const { stack } = newStack();
    const site = new Location(stack, 'site');
    const lab = new Location(stack, 'lab', { parent: site });
    new Machine(stack, 'arm', { location: lab });
    new Machine(stack, 'cart', { location: 'loc-2' });
    const doc = synth(stack);
    expect(resourceOf(doc, 'fleetform_location', 'lab').parent_location_id).toBe('${fleetform_location.site.id}');
    expect(resourceOf(doc, 'fleetform_machine', 'arm').location_id).toBe('${fleetform_location.lab.id}');
    expect(resourceOf(doc, 'fleetform_machine', 'cart').location_id).toBe('loc-2');
    expect(Location.isLocation(site)).toBe(true);
    expect(Location.isLocation('loc-2')).toBe(false);
  });

  test('bad props are refused naming the prop', () => {
    const { stack } = newStack();
    expect(() => new Location(stack, 'a', { parent: 42 as unknown as string })).toThrow(/parent/);
    expect(() => new Machine(stack, 'm', { location: {} as unknown as string })).toThrow(/Machine: "location"/);
    expect(() => new Machine(stack, 'n', { location: 'loc-1', locationId: 'loc-1' })).toThrow(/location or locationId, not both/);
  });

  test('names may repeat; an empty name and a parent of another stack are errors of the app', () => {
    const app = new App();
    const stack = new TerraformStack(app, 's');
    const other = new TerraformStack(app, 'o');
    const elsewhere = new Location(other, 'elsewhere');
    new Location(stack, 'a', { name: 'lab' });
    new Location(stack, 'b', { name: 'lab' });
    new Location(stack, 'c', { name: '' });
    new Location(stack, 'd', { parent: elsewhere });
    expect(errorsOf(app)).toEqual(['s/c name location-name', 's/d parent location-other-stack']);
    expect(() => new Machine(stack, 'arm', { location: elsewhere })).toThrow('location o/elsewhere belongs to another stack');
  });
});
