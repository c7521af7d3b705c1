import { checkModuleName, checkModuleNamingConvention, checkResourceName, conventionalModuleName } from '../../src/domain';

describe('checkResourceName', () => {
  test.each(['a', 'board-1', 'Sensor_2', '9lives', 'x'.repeat(60)])('valid %j', (name) => {
    expect(checkResourceName(name, 'components[0].name')).toEqual([]);
  });
  test.each([
    ['', 'empty'],
    ['-lead', 'invalid resource name'],
    ['_lead', 'invalid resource name'],
    ['has space', 'invalid resource name'],
    ['dot.ted', 'invalid resource name'],
    ['x'.repeat(61), '61 characters'],
  ])('invalid %j', (name, fragment) => {
    const issues = checkResourceName(name, 'components[0].name');
    expect(issues.length).toBeGreaterThan(0);
    expect(issues[0]).toMatchObject({ severity: 'error', code: 'resource-name', path: 'components[0].name' });
    expect(issues.map((i) => i.message).join(' ')).toContain(fragment);
    expect(issues[0]!.hint).toBeTruthy();
  });
});

describe('checkModuleName', () => {
  test.each(['acme_sensors', 'm', 'Mod-1', 'x'.repeat(200)])('valid %j', (name) => {
    expect(checkModuleName(name, 'modules[0].name')).toEqual([]);
  });
  test.each([
    ['', 'empty'],
    ['parent', 'reserved'],
    ['-x', 'invalid module name'],
    ['a/b', 'invalid module name'],
    ['x'.repeat(201), '201 characters'],
  ])('invalid %j', (name, fragment) => {
    const issues = checkModuleName(name, 'modules[0].name');
    expect(issues[0]).toMatchObject({ severity: 'error', code: 'module-name', path: 'modules[0].name' });
    expect(issues.map((i) => i.message).join(' ')).toContain(fragment);
  });
});

describe('module naming convention <namespace>_<module-name>', () => {
  test('conventional name', () => expect(conventionalModuleName('acme:sensors')).toBe('acme_sensors'));
  test.each([
    ['acme_sensors', 'acme:sensors'],
    ['anything', undefined],
  ])('%j with %j follows (or cannot be checked)', (name, id) => {
    expect(checkModuleNamingConvention(name, id, 'modules[0].name')).toEqual([]);
  });
  test.each([
    ['sensors', 'acme:sensors'],
    ['acme-sensors', 'acme:sensors'],
  ])('%j with %j is a warning', (name, id) => {
    expect(checkModuleNamingConvention(name, id, 'modules[0].name')).toEqual([
      expect.objectContaining({ severity: 'warning', code: 'module-naming-convention', hint: 'name it "acme_sensors"' }),
    ]);
  });
});
