import { z } from 'zod';
import { schemaProblems } from '../../src/domain/schema-issues';

/** The one wording of zod issues: each refused value named by its path, with the fix. */
describe('schemaProblems', () => {
  const schema = z.strictObject({ name: z.string(), size: z.number().optional(), kind: z.enum(['a', 'b']).optional() });
  const problemsOf = (value: unknown, wording: Parameters<typeof schemaProblems>[2] = { noun: 'field' }) => {
    const result = schema.safeParse(value);
    if (result.success) throw new Error('expected the schema to refuse the value');
    return schemaProblems(result.error.issues, value, wording);
  };

  test('an unknown name names the nearest known one; the owner, when given, is named', () => {
    expect(problemsOf({ name: 'x', sise: 1 }, { noun: 'prop', known: ['name', 'size'] })).toEqual([
      { kind: 'unknown', path: 'sise', name: 'sise', text: 'unknown prop', message: 'unknown prop "sise"', hint: 'did you mean "size"?' },
    ]);
    expect(
      problemsOf({ name: 'x', sise: 1 }, { noun: 'attribute', owner: 'fleetform_note', quote: false, known: ['name', 'size'] })[0]?.message,
    ).toBe('fleetform_note has no attribute sise');
  });

  test('a missing value is required, a wrong one says what was expected and what was found, an enum lists what it allows', () => {
    const [missing] = problemsOf({});
    expect(missing).toMatchObject({ kind: 'required', path: 'name', message: '"name" is required', expected: 'string' });
    const [wrong] = problemsOf({ name: 'x', size: 'big' });
    expect(wrong).toMatchObject({ kind: 'type', message: '"size": expected number, got the string "big"' });
    const [value] = problemsOf({ name: 'x', kind: 'c' });
    expect(value).toMatchObject({ kind: 'value', text: 'expected one of "a", "b", got the string "c"' });
  });

  test('a schema that words its own messages is quoted as it says', () => {
    const own = z.object({ app: z.string('must be a string: the command that runs the app') });
    const result = own.safeParse({ app: 5 });
    if (result.success) throw new Error('expected the schema to refuse the value');
    expect(schemaProblems(result.error.issues, { app: 5 }, { noun: 'key', ownMessages: true })[0]?.message).toBe(
      '"app" must be a string: the command that runs the app',
    );
  });
});
