import fc from 'fast-check';
import { escapeTemplate, unescapeTemplate } from '../../src/domain';

describe('Terraform JSON template escapes', () => {
  test.each([
    ['${environment.HOME}', '$${environment.HOME}'],
    ['/opt/bin:${environment.PATH}', '/opt/bin:$${environment.PATH}'],
    ['%{if x}', '%%{if x}'],
    ['$${already}', '$$${already}'],
    ['a$b%c{d}', 'a$b%c{d}'],
    ['{"env":{"HOME":"${environment.HOME}"}}', '{"env":{"HOME":"$${environment.HOME}"}}'],
  ])('%s is written %s', (literal, written) => {
    expect(escapeTemplate(literal)).toBe(written);
    expect(unescapeTemplate(written)).toBe(literal);
  });

  test('escapes are read left to right, as Terraform reads them', () => {
    expect(unescapeTemplate('$$${x}')).toBe('$${x}');
    expect(unescapeTemplate('$$$${x}')).toBe('$$${x}');
    expect(unescapeTemplate('%%%{x}')).toBe('%%{x}');
  });

  test('an unescaped placeholder of older synthesized output is read literally', () => {
    expect(unescapeTemplate('${environment.HOME}')).toBe('${environment.HOME}');
  });

  test('unescape(escape(s)) is s for any text made of the characters that matter', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('$', '%', '{', '}', 'a', '$${', '%%{'), { maxLength: 20 }), (parts) => {
        const s = parts.join('');
        expect(unescapeTemplate(escapeTemplate(s))).toBe(s);
      }),
    );
  });
});
