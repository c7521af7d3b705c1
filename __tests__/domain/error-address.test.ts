import { FleetformError, withAddress } from '../../src/domain/errors';

test("an error's hint names the resource's address where it says <this address>", () => {
  const err = new FleetformError('a machine named picker-1 already exists', {
    hint: 'fleetform import <this address> m-1; or rename this one',
  });
  expect(err.atAddress('fleetform_machine.picker-1')).toBe(err);
  expect(err.hint).toBe('fleetform import fleetform_machine.picker-1 m-1; or rename this one');
  expect(err.format()).not.toContain('<this address>');
  const plain = new FleetformError('x', { hint: 'plan again' });
  expect(plain.atAddress('a.b').hint).toBe('plan again');
  expect(withAddress('import <this address> 1 or <this address> 2', 'a.b')).toBe('import a.b 1 or a.b 2');
});
