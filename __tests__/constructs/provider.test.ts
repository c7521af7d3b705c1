import { packageVersion } from '../../src/constructs/package-version';
import { Testing } from 'cdktf';
import { FleetProvider } from '../../src/constructs';
import { errorsOf, newStack, synth } from './helpers';

describe('FleetProvider', () => {
  test('synthesizes the fleetform provider with its settings in snake_case', () => {
    const { stack } = newStack();
    new FleetProvider(stack, 'cloud', { organizationId: 'org-1', locationId: 'loc-1', endpoint: 'https://fleet.example.com:443' });
    const doc = synth(stack);
    expect(doc.terraform?.required_providers).toEqual({ fleetform: { source: 'fleetform/fleetform', version: packageVersion() } });
    expect(doc.provider?.fleetform).toEqual([
      { organization_id: 'org-1', location_id: 'loc-1', endpoint: 'https://fleet.example.com:443' },
    ]);
  });

  test('every setting is optional: they default at plan time', () => {
    const { stack } = newStack();
    new FleetProvider(stack, 'cloud');
    expect(synth(stack).provider?.fleetform).toEqual([{}]);
  });

  test('takes no credentials: the synthesized provider holds none', () => {
    const { stack } = newStack();
    new FleetProvider(stack, 'cloud', { organizationId: 'org-1' });
    const text = Testing.synth(stack, true);
    expect(text).not.toMatch(/api_key|apiKey|secret|payload/i);
  });

  test('is recognized across copies of the library by its kind', () => {
    const { stack } = newStack();
    const p = new FleetProvider(stack, 'cloud');
    expect(FleetProvider.isFleetProvider(p)).toBe(true);
    expect(FleetProvider.isFleetProvider(stack)).toBe(false);
  });

  test('a second provider in one stack is an error on the second', () => {
    const { app, stack } = newStack('fleet');
    new FleetProvider(stack, 'cloud');
    new FleetProvider(stack, 'other');
    expect(errorsOf(app)).toEqual(['fleet/other  duplicate-provider']);
    expect(() => Testing.synth(stack, true)).toThrow(/\[fleet\/other\] a stack has one FleetProvider; fleet\/cloud is already one/);
  });
});
