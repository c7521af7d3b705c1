import {
  formatApiTriplet,
  formatModelTriplet,
  isBuiltinModel,
  moduleIdOfModel,
  parseApiTriplet,
  parseModelTriplet,
  parseModuleId,
} from '../../src/domain';

describe('parseApiTriplet', () => {
  test.each([
    ['rdk:component:sensor', { namespace: 'rdk', type: 'component', name: 'sensor' }],
    ['rdk:service:vision', { namespace: 'rdk', type: 'service', name: 'vision' }],
    ['acme-co:component:my_arm', { namespace: 'acme-co', type: 'component', name: 'my_arm' }],
  ])('valid %s', (text, expected) => {
    expect(parseApiTriplet(text)).toEqual(expected);
    expect(formatApiTriplet(parseApiTriplet(text)!)).toBe(text);
  });
  test.each([
    'rdk:widget:sensor', // neither component nor service
    'rdk:component', // two parts
    'rdk:component:sensor:extra',
    'rdk::sensor',
    'rdk:component:sen sor',
    'rdk:component:sensor/x',
    '',
  ])('invalid %j', (text) => expect(parseApiTriplet(text)).toBeUndefined());
});

describe('parseModelTriplet and moduleIdOfModel', () => {
  test.each([
    ['acme:sensors:hc-sr04', { namespace: 'acme', moduleName: 'sensors', modelName: 'hc-sr04' }, 'acme:sensors'],
    ['a1b2-c3:my_mod:Model-1', { namespace: 'a1b2-c3', moduleName: 'my_mod', modelName: 'Model-1' }, 'a1b2-c3:my_mod'],
  ])('valid %s', (text, expected, moduleId) => {
    expect(parseModelTriplet(text)).toEqual(expected);
    expect(formatModelTriplet(parseModelTriplet(text)!)).toBe(text);
    expect(moduleIdOfModel(text)).toBe(moduleId);
  });
  test.each(['acme:sensors', 'acme:sensors:hc-sr04:x', 'acme:sen.sors:x', ':a:b', 'fake'])('invalid %j', (text) => {
    expect(parseModelTriplet(text)).toBeUndefined();
    expect(moduleIdOfModel(text)).toBeUndefined();
  });
  test('built-in models', () => {
    expect(isBuiltinModel('rdk:builtin:fake')).toBe(true);
    expect(isBuiltinModel('acme:sensors:hc-sr04')).toBe(false);
  });
});

describe('parseModuleId', () => {
  test.each([
    ['acme:sensors', { namespace: 'acme', name: 'sensors' }],
    ['0f3c-11aa:my-mod', { namespace: '0f3c-11aa', name: 'my-mod' }],
  ])('valid %s', (text, expected) => expect(parseModuleId(text)).toEqual(expected));
  test.each(['acme', 'acme:', 'acme:sensors:x', 'ac me:s'])('invalid %j', (text) => expect(parseModuleId(text)).toBeUndefined());
});
