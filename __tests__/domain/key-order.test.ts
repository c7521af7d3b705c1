import { inKeyOrderOf } from '../../src/domain/key-order';

describe('inKeyOrderOf: a write keeps the stored config key order where nothing changed', () => {
  test('keys both hold come in the stored order, new keys after them in the new order', () => {
    const stored = { services: [], components: [{ model: 'fake', name: 'arm', type: 'arm', attributes: { b: 1, a: 2 } }], debug: true };
    const next = {
      components: [{ name: 'arm', type: 'arm', model: 'fake', attributes: { a: 3, c: 4, b: 1 }, frame: { parent: 'world' } }],
      services: [],
      network: { bind_address: ':8080' },
    };
    const out = inKeyOrderOf(next, stored);
    expect(JSON.stringify(out)).toBe(
      JSON.stringify({
        services: [],
        components: [{ model: 'fake', name: 'arm', type: 'arm', attributes: { b: 1, a: 3, c: 4 }, frame: { parent: 'world' } }],
        network: { bind_address: ':8080' },
      }),
    );
    expect(out).toEqual(next);
  });

  test('entries are matched by name, whatever their places; a new entry keeps its own order', () => {
    const stored = {
      modules: [
        { version: '1.0.0', name: 'a', module_id: 'x:a' },
        { version: '2.0.0', module_id: 'x:b', name: 'b' },
      ],
    };
    const next = {
      modules: [
        { name: 'c', module_id: 'x:c', version: '3' },
        { name: 'b', module_id: 'x:b', version: '2.1.0' },
      ],
    };
    expect(JSON.stringify(inKeyOrderOf(next, stored))).toBe(
      JSON.stringify({
        modules: [
          { name: 'c', module_id: 'x:c', version: '3' },
          { version: '2.1.0', module_id: 'x:b', name: 'b' },
        ],
      }),
    );
  });

  test('lists without names match by position; values of another type are taken as they are', () => {
    const stored = { log: [{ level: 'info', pattern: 'a' }], fragments: ['id-1'], tracing: { enabled: true } };
    const next = { log: [{ pattern: 'b', level: 'warn' }], fragments: [{ id: 'id-1' }], tracing: 'off' };
    expect(JSON.stringify(inKeyOrderOf(next, stored))).toBe(
      JSON.stringify({ log: [{ level: 'warn', pattern: 'b' }], fragments: [{ id: 'id-1' }], tracing: 'off' }),
    );
  });

  test('nothing stored: the new config as it is', () => {
    const next = { components: [{ name: 'a', model: 'fake' }] };
    expect(JSON.stringify(inKeyOrderOf(next, undefined))).toBe(JSON.stringify(next));
    expect(JSON.stringify(inKeyOrderOf(next, {}))).toBe(JSON.stringify(next));
  });
});
