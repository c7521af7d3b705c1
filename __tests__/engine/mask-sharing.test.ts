import { randomBytes } from 'node:crypto';
import { isMasked, maskPaths } from '../../src/engine/mask';
import { withDigestsRead } from '../../src/engine/path-values';
import type { JsonObject } from '../../src/engine/json';

const key = randomBytes(32);

function config(): JsonObject {
  return {
    components: {
      'sensor-1': { name: 'sensor-1', attributes: { token: 'hunter2', rate: 5 } },
      'sensor-2': { name: 'sensor-2', attributes: { rate: 7 } },
    },
    modules: [{ name: 'm', env: { API_KEY: 'k' } }, { name: 'n' }],
    network: { fqdn: 'a.example' },
  };
}

describe('a masked view holds no second copy of what it does not mask', () => {
  it('shares every part off the secret paths and masks those on them', () => {
    const view = config();
    const masked = maskPaths(view, ['components.sensor-1.attributes.token', 'modules[0].env.API_KEY'], 'salt', key);
    const components = masked.components as JsonObject;
    const sensor1 = components['sensor-1'] as JsonObject;
    const attributes = sensor1.attributes as JsonObject;
    expect(isMasked(attributes.token)).toBe(true);
    expect(attributes.rate).toBe(5);
    const modules = masked.modules as JsonObject[];
    expect(isMasked((modules[0]?.env as JsonObject).API_KEY)).toBe(true);
    // Off the paths: the view's own objects.
    expect(components['sensor-2']).toBe((view.components as JsonObject)['sensor-2']);
    expect(modules[1]).toBe((view.modules as JsonObject[])[1]);
    expect(masked.network).toBe(view.network);
    // On the paths: new objects; the view itself keeps its secrets in clear.
    expect(sensor1).not.toBe((view.components as JsonObject)['sensor-1']);
    expect((((view.components as JsonObject)['sensor-1'] as JsonObject).attributes as JsonObject).token).toBe('hunter2');
    expect(masked).toEqual({ ...view, components: masked.components, modules: masked.modules });
  });

  it('returns the value itself when no path leads anywhere in it, or a path only names a prefix of a key', () => {
    const view = config();
    expect(maskPaths(view, [], 'salt', key)).toBe(view);
    expect(maskPaths(view, ['absent.token'], 'salt', key)).toBe(view);
    // `network.fq` is not a path into `network.fqdn`.
    expect(maskPaths(view, ['network.fq'], 'salt', key)).toBe(view);
  });

  it('masks a value once: masking a masked view again changes nothing and copies nothing', () => {
    const once = maskPaths(config(), ['components.sensor-1.attributes.token'], 'salt', key);
    expect(maskPaths(once, ['components.sensor-1.attributes.token'], 'salt', key)).toBe(once);
  });

  it('reads digests back at their paths and leaves the rest shared', () => {
    const masked = maskPaths(config(), ['components.sensor-1.attributes.token'], 'salt', key);
    const stored = JSON.parse(JSON.stringify(masked)) as JsonObject;
    const read = withDigestsRead(stored, ['components.sensor-1.attributes.token']);
    expect(read).toEqual(masked);
    expect(read.modules).toBe(stored.modules);
  });
});
