import { configText, unsafeIntegerLiterals } from '../../src/domain/config-text';

describe('the JSON text a part write sends', () => {
  test('keys in the order the config holds them, at every depth; integers as integers', () => {
    const config = { services: [], components: [{ name: 'cam', model: 'm', attributes: { zoom: 2, fps: 30, ratio: 0.5 } }] };
    expect(configText(config)).toBe(
      '{"services":[],"components":[{"name":"cam","model":"m","attributes":{"zoom":2,"fps":30,"ratio":0.5}}]}',
    );
    expect(JSON.parse(configText(config))).toEqual(config);
  });

  test('an integer above 2^53 read from a text goes back as it was written there', () => {
    const read = '{"a":{"serial":9007199254740993},"b":[-12345678901234567891]}';
    const parsed = JSON.parse(read) as { a: { serial: number }; b: number[] };
    expect(parsed.a.serial).toBe(2 ** 53);
    // Moved and reordered, the values still find their literals.
    const edited = { b: parsed.b, extra: 1, a: parsed.a };
    expect(configText(edited, [read])).toBe('{"b":[-12345678901234567891],"extra":1,"a":{"serial":9007199254740993}}');
    // Without the text, the double.
    expect(configText(edited)).toBe('{"b":[-12345678901234567000],"extra":1,"a":{"serial":9007199254740992}}');
  });

  test('a literal inside a string is not a number; two literals of one double are left as the double', () => {
    expect([...unsafeIntegerLiterals(['{"note":"9007199254740993"}']).keys()]).toEqual([]);
    const both = unsafeIntegerLiterals(['{"a":9007199254740993,"b":9007199254740992}']);
    expect(both.has(2 ** 53)).toBe(false);
    expect(unsafeIntegerLiterals(['{"a":1.5e300,"b":9007199254740993.0}']).size).toBe(0);
  });

  test('a key named __proto__ is written as a key; undefined members are left out, as JSON.stringify does', () => {
    const config = JSON.parse('{"__proto__":{"x":1},"b":2}') as Record<string, unknown>;
    expect(configText(config)).toBe('{"__proto__":{"x":1},"b":2}');
    expect(configText({ a: undefined, b: [undefined, 1] })).toBe(JSON.stringify({ a: undefined, b: [undefined, 1] }));
  });
});
