import { findPlaceholders, substitutePlaceholders } from '../../src/domain';

describe('findPlaceholders', () => {
  test('strings at any depth, with their paths', () => {
    const attributes = {
      board: 'board-1',
      pins: { trigger: '${environment.TRIGGER_PIN}', list: ['x', '${environment.A}-${environment.B}'] },
      deep: [{ a: [{ b: '${secrets.X}' }] }],
      'odd key': '${environment.ODD}',
      n: 5,
      t: true,
      z: null,
    };
    expect(findPlaceholders(attributes, 'components[0].attributes')).toEqual([
      { path: 'components[0].attributes.pins.trigger', text: '${environment.TRIGGER_PIN}', variable: 'TRIGGER_PIN', valid: true },
      { path: 'components[0].attributes.pins.list[1]', text: '${environment.A}', variable: 'A', valid: true },
      { path: 'components[0].attributes.pins.list[1]', text: '${environment.B}', variable: 'B', valid: true },
      { path: 'components[0].attributes.deep[0].a[0].b', text: '${secrets.X}', valid: false },
      { path: 'components[0].attributes["odd key"]', text: '${environment.ODD}', variable: 'ODD', valid: true },
    ]);
  });

  test.each<[string, string | undefined]>([
    ['${environment.PATH}', 'PATH'],
    ['${environment.my_var}', 'my_var'],
    ['${environment.a:b/c-d}', 'a:b/c-d'],
    ['${environment.}', undefined],
    ['${environment}', undefined],
    ['${env.PATH}', undefined],
    ['${ environment.PATH}', undefined],
    ['${environment.PATH }', undefined],
    ['${environment.A.B}', undefined],
    ['${}', undefined],
    ['${HOME}', undefined],
  ])('%j -> variable %j', (text, variable) => {
    const [ref] = findPlaceholders(text, 'modules[0].env.X');
    expect(ref).toEqual(
      variable === undefined ? { path: 'modules[0].env.X', text, valid: false } : { path: 'modules[0].env.X', text, variable, valid: true },
    );
  });

  test.each(['plain', '$HOME', '${unterminated', '{environment.X}', '$ {environment.X}'])('%j holds no placeholder', (text) => {
    expect(findPlaceholders(text, 'p')).toEqual([]);
  });
});

describe('substitutePlaceholders', () => {
  const env = { PATH: '/usr/bin:/bin', HOME: '/home/pi', EMPTY: '', UNSET: undefined };
  test.each<[string, string, string[], string[]]>([
    ['/opt/acme/bin:${environment.PATH}', '/opt/acme/bin:/usr/bin:/bin', [], []],
    ['${environment.HOME}/data/${environment.HOME}', '/home/pi/data//home/pi', [], []],
    ['x${environment.EMPTY}y', 'xy', [], []],
    [
      '${environment.NOPE}:${environment.UNSET}:${environment.NOPE}',
      '${environment.NOPE}:${environment.UNSET}:${environment.NOPE}',
      ['NOPE', 'UNSET'],
      [],
    ],
    ['${secret.X} ${environment.HOME}', '${secret.X} /home/pi', [], ['${secret.X}']],
    ['no placeholders', 'no placeholders', [], []],
    ['${environment.toString}', '${environment.toString}', ['toString'], []],
  ])('%j', (text, value, missing, invalid) => {
    expect(substitutePlaceholders(text, env)).toEqual({ value, missing, invalid });
  });
});
