import { locationOfUnplacedMachine } from '../../src/domain/machine-location';

describe('where a machine whose code names no location lives', () => {
  test('the location the provider names, even over where the machine is: code decides', () => {
    expect(locationOfUnplacedMachine({ named: 'loc-p', current: 'loc-a', existing: ['loc-a', 'loc-b'], creating: 1 })).toEqual({
      locationId: 'loc-p',
    });
  });

  test('where the machine already is, however many locations the organization has or the stack creates', () => {
    expect(locationOfUnplacedMachine({ current: 'loc-a', existing: ['loc-a', 'loc-b'], creating: 0 })).toEqual({ locationId: 'loc-a' });
    expect(locationOfUnplacedMachine({ current: 'loc-a', existing: ['loc-a'], creating: 2 })).toEqual({ locationId: 'loc-a' });
  });

  test('a new machine: the only location, unless the stack creates another, when it must say which', () => {
    expect(locationOfUnplacedMachine({ existing: ['loc-a'], creating: 0 })).toEqual({ locationId: 'loc-a' });
    expect(locationOfUnplacedMachine({ existing: ['loc-a'], creating: 1 })).toEqual({ locationId: undefined, locations: 1, creating: 1 });
    expect(locationOfUnplacedMachine({ existing: ['loc-a', 'loc-b'], creating: 0 })).toEqual({
      locationId: undefined,
      locations: 2,
      creating: 0,
    });
    expect(locationOfUnplacedMachine({ existing: [], creating: 0 })).toEqual({ locationId: undefined, locations: 0, creating: 0 });
  });
});
