/**
 * Resolving a machine's config from its fragments: versions and tags, variables, prefixes,
 * disabled imports, nesting and cycles, fragment_mods (all or none), and the errors naming
 * machine, fragment and field.
 */
import fc from 'fast-check';
import {
  isRevisionNumber,
  FRAGMENT_NESTING_LIMIT,
  FragmentResolutionError,
  fragmentLookup,
  resolveMachineConfig,
  type FragmentSource,
} from '../../src/domain/fragments';

const cam = { name: 'cam', api: 'rdk:component:camera', model: 'acme:cams:usb', attributes: { fps: 30 } };
const board = {
  name: 'board',
  api: 'rdk:component:board',
  model: 'acme:sensors:pi',
  attributes: { pin: { $variable: { name: 'pin' } } },
  depends_on: ['cam'],
};
const sensorsModule = { type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '~1.2' };

const rig: FragmentSource = {
  id: 'rig',
  name: 'sensor-rig',
  revisions: [
    { revision: '1', config: { components: [cam] } },
    { revision: '2', config: { components: [cam, board], modules: [sensorsModule] } },
  ],
  tags: { stable: '1' },
};

function resolve(config: Record<string, unknown>, sources: FragmentSource[] = [rig]) {
  return resolveMachineConfig({ machine: 'picker', config, fragments: fragmentLookup(sources) });
}

function codes(r: ReturnType<typeof resolve>): string[] {
  return r.errors.map((e) => e.code);
}

describe('versions', () => {
  it('follows the latest revision without a version, and a pinned revision or tag with one', () => {
    const latest = resolve({ fragments: [{ id: 'rig', variables: { pin: '11' } }] });
    expect(latest.errors).toEqual([]);
    expect(latest.imports[0]?.revision).toBe('2');
    expect((latest.config['components'] as unknown[]).length).toBe(2);
    const pinned = resolve({ fragments: [{ id: 'rig', version: '1' }] });
    expect(pinned.config).toEqual({ components: [cam] });
    const tagged = resolve({ fragments: [{ id: 'rig', version: 'stable' }] });
    expect(tagged.imports[0]?.revision).toBe('1');
    expect(tagged.config).toEqual({ components: [cam] });
  });

  it('accepts a bare id as an import', () => {
    expect(resolve({ fragments: ['rig'] }).imports[0]?.revision).toBe('2');
  });

  it('names an unknown fragment or version, and the import brings nothing', () => {
    const r = resolve({ components: [], fragments: [{ id: 'nope' }, { id: 'rig', version: 'beta' }] });
    expect(codes(r)).toEqual(['unknown-fragment', 'unknown-version']);
    expect(r.errors[1]?.field).toBe('fragments[1].version');
    expect(r.errors[1]?.machine).toBe('picker');
    expect(r.errors[1]?.fragmentId).toBe('rig');
    expect(r.errors[1]).toBeInstanceOf(FragmentResolutionError);
    expect(r.errors[1]?.message).toMatch(/machine picker, fragment rig/);
    expect(r.config).toEqual({ components: [] });
  });

  it('refuses malformed imports with the field and a hint', () => {
    const r = resolve({ fragments: [{ version: '1' }, { id: 'rig', prefix: 3 }, 7] });
    expect(codes(r)).toEqual(['bad-import', 'bad-import', 'bad-import']);
    expect(r.errors.map((e) => e.field)).toEqual(['fragments[0]', 'fragments[1]', 'fragments[2]']);
    expect(r.errors[0]?.hint).toMatch(/"id"/);
  });
});

describe('variables', () => {
  it('fill placeholders at any depth, never changing the stored fragment', () => {
    const r = resolve({ fragments: [{ id: 'rig', variables: { pin: 11 } }] });
    const components = r.config['components'] as Array<Record<string, unknown>>;
    expect(components[1]?.['attributes']).toEqual({ pin: 11 });
    expect((rig.revisions[1]?.config['components'] as Array<Record<string, unknown>>)[1]?.['attributes']).toEqual({
      pin: { $variable: { name: 'pin' } },
    });
  });

  it('an unset variable is an error and its placeholder stays as written', () => {
    const r = resolve({ fragments: [{ id: 'rig' }] });
    expect(codes(r)).toEqual(['unset-variable']);
    expect(r.errors[0]?.field).toBe('fragment:rig.components[1].attributes.pin');
    expect(r.errors[0]?.hint).toContain('fragments[0].variables.pin');
    expect((r.config['components'] as Array<Record<string, unknown>>)[1]?.['attributes']).toEqual({ pin: { $variable: { name: 'pin' } } });
  });

  it('a fragment resolved again for other machines reads the same: variables, unset ones and unread ones alike', () => {
    for (let round = 0; round < 3; round++) {
      expect(resolve({ fragments: [{ id: 'rig', version: '1', variables: { pin: 1 } }] }).errors.map((e) => e.code)).toEqual([
        'unknown-variable',
      ]);
      expect(codes(resolve({ fragments: [{ id: 'rig', version: '1' }] }))).toEqual([]);
      const set = resolve({ fragments: [{ id: 'rig', variables: { pin: round } }] });
      expect(codes(set)).toEqual([]);
      expect((set.config['components'] as Array<Record<string, unknown>>)[1]?.['attributes']).toEqual({ pin: round });
      expect(codes(resolve({ fragments: [{ id: 'rig' }] }))).toEqual(['unset-variable']);
    }
  });

  it('a variable the fragment never reads is an error naming it', () => {
    const r = resolve({ fragments: [{ id: 'rig', variables: { pin: 1, pni: 2 } }] });
    expect(codes(r)).toEqual(['unknown-variable']);
    expect(r.errors[0]?.field).toBe('fragments[0].variables.pni');
  });
});

describe('prefixes and disabled imports', () => {
  it('prefix component names and the depends_on naming them; one fragment twice needs two prefixes', () => {
    const r = resolve({
      fragments: [
        { id: 'rig', prefix: 'front', variables: { pin: 1 } },
        { id: 'rig', prefix: 'back', variables: { pin: 2 } },
      ],
    });
    expect(r.errors).toEqual([]);
    const components = r.config['components'] as Array<Record<string, unknown>>;
    expect(components.map((c) => c['name'])).toEqual(['front-cam', 'front-board', 'back-cam', 'back-board']);
    expect(components[1]?.['depends_on']).toEqual(['front-cam']);
    // The shared module is the same entry from both imports: kept once.
    expect(r.config['modules']).toEqual([sensorsModule]);
    expect(r.imports.map((i) => i.entries.map((e) => e.name))).toEqual([
      ['front-cam', 'front-board', 'acme_sensors'],
      ['back-cam', 'back-board'],
    ]);
    const twice = resolve({
      fragments: [
        { id: 'rig', version: '1' },
        { id: 'rig', version: '1' },
      ],
    });
    expect(codes(twice)).toEqual(['duplicate-import']);
  });

  it('a disabled import loads nothing and is still listed with its revision', () => {
    const r = resolve({ components: [], fragments: [{ id: 'rig', disabled: true }] });
    expect(r.errors).toEqual([]);
    expect(r.config).toEqual({ components: [] });
    expect(r.imports[0]).toMatchObject({ id: 'rig', disabled: true, revision: '2', entries: [] });
  });

  it('an entry named like one of the machine is an error; the machine keeps its own', () => {
    const mine = { ...cam, attributes: { fps: 5 } };
    const r = resolve({ components: [mine], fragments: [{ id: 'rig', version: '1' }] });
    expect(codes(r)).toEqual(['duplicate-name']);
    expect(r.errors[0]?.field).toBe('fragment:rig.components.cam');
    expect(r.config['components']).toEqual([mine]);
  });
});

describe('nesting', () => {
  function chain(n: number): FragmentSource[] {
    return Array.from({ length: n }, (_, i) => ({
      id: `f${i + 1}`,
      name: `f${i + 1}`,
      revisions: [
        {
          revision: '1',
          config: {
            services: [{ name: `s${i + 1}`, api: 'rdk:service:x', model: 'a:b:c' }],
            ...(i + 1 < n ? { fragments: [{ id: `f${i + 2}` }] } : {}),
          },
        },
      ],
    }));
  }

  it(`resolves ${FRAGMENT_NESTING_LIMIT} levels and refuses a sixth, naming it`, () => {
    const ok = resolve({ fragments: ['f1'] }, chain(5));
    expect(ok.errors).toEqual([]);
    expect((ok.config['services'] as unknown[]).length).toBe(5);
    expect(ok.imports.map((i) => [i.id, i.depth, i.importedBy])).toEqual([
      ['f1', 1, undefined],
      ['f2', 2, 'f1'],
      ['f3', 3, 'f2'],
      ['f4', 4, 'f3'],
      ['f5', 5, 'f4'],
    ]);
    const deep = resolve({ fragments: ['f1'] }, chain(6));
    expect(codes(deep)).toEqual(['nesting-limit']);
    expect(deep.errors[0]?.fragmentId).toBe('f6');
    expect(deep.errors[0]?.field).toBe('fragment:f5.fragments[0]');
    expect((deep.config['services'] as unknown[]).length).toBe(5);
  });

  it('a cycle is named with its path and resolves what comes before it', () => {
    const a: FragmentSource = { id: 'a', name: 'a', revisions: [{ revision: '1', config: { components: [cam], fragments: ['b'] } }] };
    const b: FragmentSource = { id: 'b', name: 'b', revisions: [{ revision: '1', config: { fragments: ['a'] } }] };
    const r = resolve({ fragments: ['a'] }, [a, b]);
    expect(codes(r)).toEqual(['cycle']);
    expect(r.errors[0]?.message).toContain('a -> b -> a');
    expect(r.imports.find((i) => i.error)?.importedBy).toBe('b');
    expect(r.config['components']).toEqual([cam]);
  });

  it('nested prefixes compose outer first and variables pass down through imports', () => {
    const inner: FragmentSource = {
      id: 'inner',
      name: 'inner',
      revisions: [{ revision: '1', config: { components: [{ ...cam, attributes: { fps: { $variable: { name: 'fps' } } } }] } }],
    };
    const outer: FragmentSource = {
      id: 'outer',
      name: 'outer',
      revisions: [
        { revision: '1', config: { fragments: [{ id: 'inner', prefix: 'in', variables: { fps: { $variable: { name: 'rate' } } } }] } },
      ],
    };
    const r = resolve({ fragments: [{ id: 'outer', prefix: 'out', variables: { rate: 12 } }] }, [inner, outer]);
    expect(r.errors).toEqual([]);
    expect(r.config['components']).toEqual([{ ...cam, name: 'out-in-cam', attributes: { fps: 12 } }]);
    expect(r.imports.map((i) => i.prefix)).toEqual(['out', 'out-in']);
  });
});

describe('fragment_mods', () => {
  const base = { fragments: [{ id: 'rig', prefix: 'front', variables: { pin: 11 } }] };

  it('$set and $unset address entries by the name the machine sees', () => {
    const r = resolve({
      ...base,
      fragment_mods: [
        {
          fragment_id: 'rig',
          mods: [
            { $set: { 'components.front-board.attributes.timeout_ms': 200, 'modules.acme_sensors.version': '1.2.3' } },
            { $unset: { 'components.front-cam.attributes.fps': 0 } },
          ],
        },
      ],
    });
    expect(r.errors).toEqual([]);
    const components = r.config['components'] as Array<Record<string, unknown>>;
    expect(components[1]?.['attributes']).toEqual({ pin: 11, timeout_ms: 200 });
    expect(components[0]?.['attributes']).toEqual({});
    expect((r.config['modules'] as Array<Record<string, unknown>>)[0]?.['version']).toBe('1.2.3');
  });

  it('a renamed entry is still addressed by its old name; arrays are indexed; a whole entry can go', () => {
    const r = resolve({
      ...base,
      fragment_mods: [
        {
          fragment_id: 'rig',
          mods: [
            { $set: { 'components.front-cam.name': 'eye', 'components.front-board.depends_on.1': 'eye' } },
            { $set: { 'components.front-cam.attributes.fps': 10 } },
            { $unset: { 'modules.acme_sensors': true } },
          ],
        },
      ],
    });
    expect(r.errors).toEqual([]);
    const components = r.config['components'] as Array<Record<string, unknown>>;
    expect(components[0]).toMatchObject({ name: 'eye', attributes: { fps: 10 } });
    expect(components[1]?.['depends_on']).toEqual(['front-cam', 'eye']);
    expect(r.config['modules']).toEqual([]);
  });

  it('if one mod fails none apply, and each failure names its mod', () => {
    const r = resolve({
      ...base,
      fragment_mods: [
        {
          fragment_id: 'rig',
          mods: [{ $set: { 'components.front-board.attributes.pin': 99 } }, { $set: { 'components.board.attributes.x': 1 } }],
        },
        { fragment_id: 'other', mods: [] },
        { fragment_id: 'rig', mods: [{ $rename: { a: 'b' } }, { $unset: { 'components.front-cam.attributes.nothing': 0 } }] },
      ],
    });
    expect(codes(r)).toEqual(['mod-failed', 'mod-failed', 'bad-mod', 'mod-failed']);
    expect(r.errors.map((e) => e.field)).toEqual([
      'fragment_mods[0].mods[1]["$set"]["components.board.attributes.x"]',
      'fragment_mods[1].fragment_id',
      'fragment_mods[2].mods[0]["$rename"]',
      'fragment_mods[2].mods[1]["$unset"]["components.front-cam.attributes.nothing"]',
    ]);
    expect(r.errors[0]?.message).toMatch(/no components entry named "board"/);
    expect(r.errors[0]?.message).toMatch(/no mod .* is applied/);
    expect((r.config['components'] as Array<Record<string, unknown>>)[1]?.['attributes']).toEqual({ pin: 11 });
  });

  it('mods of a disabled import are skipped and the others still apply', () => {
    const other: FragmentSource = {
      id: 'other',
      name: 'other',
      revisions: [{ revision: '1', config: { services: [{ name: 'nav', api: 'rdk:service:navigation', model: 'a:b:c' }] } }],
    };
    const r = resolve(
      {
        fragments: [{ id: 'rig', disabled: true }, 'other'],
        fragment_mods: [
          { fragment_id: 'rig', mods: [{ $set: { 'components.front-board.attributes.pin': 1 } }] },
          { fragment_id: 'other', mods: [{ $set: { 'services.nav.attributes.x': 1 } }] },
        ],
      },
      [rig, other],
    );
    expect(r.errors).toEqual([]);
    expect(r.config['services']).toEqual([{ name: 'nav', api: 'rdk:service:navigation', model: 'a:b:c', attributes: { x: 1 } }]);
  });

  it('refuses a set through a value that is not an object, and an index past the end', () => {
    const r = resolve({
      ...base,
      fragment_mods: [
        {
          fragment_id: 'rig',
          mods: [{ $set: { 'components.front-cam.attributes.fps.x': 1, 'components.front-board.depends_on.5': 'x' } }],
        },
      ],
    });
    expect(codes(r)).toEqual(['mod-failed', 'mod-failed']);
    expect(r.errors[0]?.message).toMatch(/is 30, not an object/);
    expect(r.errors[1]?.message).toMatch(/has 1 elements/);
  });
});

describe('properties', () => {
  const name = fc.stringMatching(/^[a-z][a-z0-9]{0,5}$/);
  const entry = fc.record({
    name,
    api: fc.constant('rdk:component:x'),
    model: fc.constant('a:b:c'),
    attributes: fc.dictionary(name, fc.integer()),
  });
  const entries = fc.uniqueArray(entry, { selector: (e) => e.name, maxLength: 5 });

  it('a machine without fragments resolves to its own config, keys and entries unchanged', () => {
    fc.assert(
      fc.property(entries, fc.dictionary(name, fc.jsonValue()), (components, extra) => {
        const config: Record<string, unknown> = { ...extra, components };
        delete config['fragments'];
        delete config['fragment_mods'];
        const r = resolve(config);
        expect(r.errors).toEqual([]);
        expect(r.config).toEqual(config);
      }),
    );
  });

  it('resolution never changes its input and is deterministic', () => {
    fc.assert(
      fc.property(entries, entries, fc.option(name, { nil: undefined }), (own, fragmentEntries, prefix) => {
        const source: FragmentSource = { id: 'f', name: 'f', revisions: [{ revision: '1', config: { components: fragmentEntries } }] };
        const config = { components: own, fragments: [{ id: 'f', ...(prefix === undefined ? {} : { prefix }) }] };
        const before = JSON.stringify([config, source]);
        const a = resolve(config, [source]);
        const b = resolve(config, [source]);
        expect(JSON.stringify([config, source])).toBe(before);
        expect(a.config).toEqual(b.config);
        expect(a.errors.map((e) => e.message)).toEqual(b.errors.map((e) => e.message));
      }),
    );
  });

  it('variables, prefixes and mods never change the fragments or the machine config they come from', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(entry, { selector: (e) => e.name, minLength: 1, maxLength: 4 }),
        fc.jsonValue(),
        name,
        fc.nat(),
        (fragmentEntries, value, key, pick) => {
          const withPlaceholder = fragmentEntries.map((e, i) =>
            i === 0 ? { ...e, attributes: { ...e.attributes, v: { $variable: { name: 'v' } } } } : e,
          );
          const source: FragmentSource = {
            id: 'f',
            name: 'f',
            revisions: [{ revision: '1', config: { components: withPlaceholder, network: { bind: { port: 1 } } } }],
          };
          const target = fragmentEntries[pick % fragmentEntries.length]?.name as string;
          const config = {
            network: { bind: { port: 2 } },
            fragments: [{ id: 'f', prefix: 'p', variables: { v: { nested: [value] } } }],
            fragment_mods: [
              {
                fragment_id: 'f',
                mods: [
                  { $set: { [`components.p-${target}.attributes.${key}.deep`]: value } },
                  { $unset: { [`components.p-${fragmentEntries[0]?.name}.attributes.v`]: 1 } },
                ],
              },
            ],
          };
          const before = JSON.stringify([config, source]);
          const r = resolve(config, [source]);
          expect(JSON.stringify([config, source])).toBe(before);
          expect((r.config['components'] as unknown[]).length).toBe(fragmentEntries.length);
        },
      ),
    );
  });

  it('every name is unique after resolution, the machine keeps every entry, and each clash is one error', () => {
    fc.assert(
      fc.property(entries, entries, fc.option(name, { nil: undefined }), (own, fragmentEntries, prefix) => {
        const source: FragmentSource = { id: 'f', name: 'f', revisions: [{ revision: '1', config: { components: fragmentEntries } }] };
        const r = resolve({ components: own, fragments: [{ id: 'f', ...(prefix === undefined ? {} : { prefix }) }] }, [source]);
        const names = (r.config['components'] as Array<{ name: string }>).map((c) => c.name);
        expect(new Set(names).size).toBe(names.length);
        expect(names.slice(0, own.length)).toEqual(own.map((c) => c.name));
        const brought = fragmentEntries.map((e) => (prefix === undefined ? e.name : `${prefix}-${e.name}`));
        const clashes = brought.filter((n) => own.some((o) => o.name === n)).length;
        expect(r.errors.filter((e) => e.code === 'duplicate-name').length).toBe(clashes);
        expect(names.length).toBe(own.length + brought.length - clashes);
      }),
    );
  });

  it('mods apply all or none: with one failing mod the result equals the unmodded one', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(entry, { selector: (e) => e.name, minLength: 1, maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(), name, fc.integer()), { maxLength: 4 }),
        fc.boolean(),
        (fragmentEntries, sets, broken) => {
          const source: FragmentSource = { id: 'f', name: 'f', revisions: [{ revision: '1', config: { components: fragmentEntries } }] };
          const mods = sets.map(([i, key, value]) => ({
            $set: { [`components.${fragmentEntries[i % fragmentEntries.length]?.name}.attributes.${key}`]: value },
          }));
          if (broken) mods.push({ $set: { 'components.NoSuchEntry.attributes.x': 1 } });
          const plain = resolve({ fragments: ['f'] }, [source]);
          const modded = resolve({ fragments: ['f'], fragment_mods: [{ fragment_id: 'f', mods }] }, [source]);
          if (broken) {
            expect(modded.errors.map((e) => e.code)).toEqual(['mod-failed']);
            expect(modded.config).toEqual(plain.config);
          } else {
            expect(modded.errors).toEqual([]);
            for (const [i, key, value] of sets) {
              const target = fragmentEntries[i % fragmentEntries.length]?.name;
              const last = [...sets].reverse().find(([j, k]) => fragmentEntries[j % fragmentEntries.length]?.name === target && k === key);
              const got = (modded.config['components'] as Array<{ name: string; attributes: Record<string, unknown> }>).find(
                (c) => c.name === target,
              );
              expect(got?.attributes[key]).toBe(last?.[2] ?? value);
            }
          }
        },
      ),
    );
  });
});

test('an import version of digits names a revision; anything else names a tag', () => {
  expect(['1', '42'].map(isRevisionNumber)).toEqual([true, true]);
  expect(['stable', '1a', 'v2', ''].map(isRevisionNumber)).toEqual([false, false, false, false]);
});
