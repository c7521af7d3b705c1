/** Which lists a config holds when nothing fills them: as code names them, each other one left out. */
import fc from 'fast-check';
import { DEFAULT_EMPTY_LISTS, EMPTY_LIST_SECTIONS, presentLists, withEmptyLists } from '../../src/domain/config';
import { isDeclaredSection } from '../../src/domain/config-language';

test('the named lists are present, empty ones not named are left out, lists with entries and other keys stay', () => {
  const config = { components: [], services: [{ name: 'm' }], modules: [], remotes: [], network: { bind_address: ':1' } };
  const out = withEmptyLists(config, ['modules', 'packages']);
  expect(out).toEqual({ services: [{ name: 'm' }], modules: [], packages: [], network: { bind_address: ':1' } });
  expect(config).toEqual({ components: [], services: [{ name: 'm' }], modules: [], remotes: [], network: { bind_address: ':1' } });
  expect(DEFAULT_EMPTY_LISTS).toEqual(['components', 'services', 'modules']);
  for (const list of EMPTY_LIST_SECTIONS) expect(isDeclaredSection(list)).toBe(true);
});

test('a config given the lists it holds comes back as it is, from nothing but those lists', () => {
  const list = fc.oneof(fc.constant(undefined), fc.constant([]), fc.constant([{ name: 'x' }]));
  const config = fc.record(Object.fromEntries(EMPTY_LIST_SECTIONS.map((l) => [l, list])) as Record<string, typeof list>);
  fc.assert(
    fc.property(config, (raw) => {
      const written = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined));
      const bare = Object.fromEntries(Object.entries(written).filter(([, v]) => Array.isArray(v) && v.length > 0));
      expect(withEmptyLists(bare, presentLists(written))).toEqual(written);
    }),
    { numRuns: 200 },
  );
});
