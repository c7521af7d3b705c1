import {
  findPlaceholders,
  packageFolder,
  packagePlaceholder,
  parsePackageKey,
  placeholderReplacementError,
  substitutePlaceholders,
  validateMachineConfig,
  type Issue,
} from '../../src/domain';

const detector = { name: 'box-detector', package: 'org-1/box-detector', version: '2026-11-01T10-00-00', type: 'ml_model' };
const tflite = { type: 'registry', name: 'viam_mlmodel-tflite', module_id: 'viam:mlmodel-tflite', version: '^1' };

function configWith(
  attributes: Record<string, unknown>,
  packages: unknown = [detector],
  env: Record<string, string> = {},
): Record<string, unknown> {
  return {
    services: [{ name: 'mlmodel', api: 'rdk:service:mlmodel', model: 'viam:mlmodel-tflite:tflite_cpu', attributes }],
    modules: [{ ...tflite, env }],
    packages,
  };
}

function errorsOf(config: unknown): Array<Pick<Issue, 'code' | 'path' | 'message'>> {
  return validateMachineConfig(config).errors.map(({ code, path, message }) => ({ code, path, message }));
}

function warningsOf(config: unknown): Array<Pick<Issue, 'code' | 'path' | 'message'>> {
  return validateMachineConfig(config).warnings.map(({ code, path, message }) => ({ code, path, message }));
}

describe('package placeholder keys', () => {
  test.each<[string, { type: string | undefined; name: string } | undefined]>([
    ['packages.box-detector', { type: undefined, name: 'box-detector' }],
    ['packages.ml_model.box-detector', { type: 'ml_model', name: 'box-detector' }],
    ['packages.module.acme:x/y-z', { type: 'module', name: 'acme:x/y-z' }],
    ['packages.a.b.c', undefined],
    ['packages.', undefined],
    ['packages', undefined],
    ['package.x', undefined],
    ['packages.x y', undefined],
  ])('%j -> %j', (key, ref) => {
    expect(parsePackageKey(key)).toEqual(ref);
  });

  test('a package placeholder is a valid placeholder carrying the package it names', () => {
    expect(findPlaceholders({ p: '${packages.ml_model.m}/model.tflite' }, 'a')).toEqual([
      { path: 'a.p', text: '${packages.ml_model.m}', package: { type: 'ml_model', name: 'm' }, valid: true },
    ]);
  });

  test('the placeholder a Package gives, and the folder it resolves to', () => {
    expect(packagePlaceholder('ml_model', 'box-detector')).toBe('${packages.ml_model.box-detector}');
    expect(packageFolder('/root/.viam', detector, '1.2.3')).toBe('/root/.viam/packages/data/ml_model/org-1-box-detector-1_2_3');
  });

  test('substitution puts folders in for packages the machine has and leaves the rest as written', () => {
    const folders = (ref: { type: string | undefined; name: string }) => (ref.name === 'm' ? `/h/${ref.type ?? 'ml_model'}/m` : undefined);
    expect(substitutePlaceholders('${packages.m}/a:${packages.ml_model.x}:${environment.H}', { H: 'h' }, folders)).toEqual({
      value: '/h/ml_model/m/a:${packages.ml_model.x}:h',
      missing: [],
      invalid: [],
    });
    expect(substitutePlaceholders('${packages.m}', {})).toEqual({ value: '${packages.m}', missing: [], invalid: [] });
  });
});

describe('packages in a machine config', () => {
  test('a config using its package through both placeholder forms is valid', () => {
    const config = configWith(
      { model_path: '${packages.ml_model.box-detector}/model.tflite', label_path: '${packages.box-detector}/labels.txt' },
      [detector],
      {
        MODEL_DIR: '${packages.box-detector}',
      },
    );
    expect(validateMachineConfig(config)).toEqual({ errors: [], warnings: [] });
  });

  test('an unknown package name is a warning at the field (the service stores it; what reads it fails), naming the resource, the packages the machine has and the fix', () => {
    const config = configWith({ model_path: '${packages.ml_model.box-detecter}/model.tflite' });
    expect(errorsOf(config)).toEqual([]);
    expect(warningsOf(config)).toEqual([
      {
        code: 'package-placeholder',
        path: 'services[0].attributes.model_path',
        message:
          'resource "mlmodel": placeholder ${packages.ml_model.box-detecter} is left as written, and what reads it fails: failed to find a package named "box-detecter"; ' +
          'this machine\'s packages: box-detector (ml_model); declare a package named "box-detecter" on the machine (a Package construct, or a "packages" entry)',
      },
    ]);
  });

  test('a placeholder in module env and executable_path is checked too; without packages it names none', () => {
    const config = {
      modules: [
        { type: 'local', name: 'local-1', executable_path: '${packages.module.mine}/run.sh', env: { DATA: '${packages.archive.data}' } },
      ],
    };
    expect(errorsOf(config)).toEqual([]);
    expect(warningsOf(config).map((e) => [e.path, e.message])).toEqual([
      [
        'modules[0].env.DATA',
        'module "local-1": placeholder ${packages.archive.data} is left as written, and what reads it fails: failed to find a package named "data"; ' +
          'this machine\'s packages: (none); declare a package named "data" on the machine (a Package construct, or a "packages" entry)',
      ],
      [
        'modules[0].executable_path',
        'module "local-1": placeholder ${packages.module.mine} is left as written, and what reads it fails: failed to find a package named "mine"; ' +
          'this machine\'s packages: (none); declare a package named "mine" on the machine (a Package construct, or a "packages" entry)',
      ],
    ]);
  });

  test('a type mismatch is a warning saying both types and the placeholder to write; ${packages.NAME} looks for an ml_model', () => {
    const archive = { ...detector, type: 'archive' };
    const config = configWith(
      { a: '${packages.box-detector}', b: '${packages.module.box-detector}', c: '${packages.archive.box-detector}' },
      [archive],
    );
    expect(errorsOf(config)).toEqual([]);
    expect(warningsOf(config)).toEqual([
      {
        code: 'package-placeholder',
        path: 'services[0].attributes.a',
        message:
          'resource "mlmodel": placeholder ${packages.box-detector} is left as written, and what reads it fails: it is looking for a package of type ml_model ' +
          'but a package of type archive was found; write ${packages.archive.box-detector}',
      },
      {
        code: 'package-placeholder',
        path: 'services[0].attributes.b',
        message:
          'resource "mlmodel": placeholder ${packages.module.box-detector} is left as written, and what reads it fails: it is looking for a package of type module ' +
          'but a package of type archive was found; write ${packages.archive.box-detector}',
      },
    ]);
  });

  test("the machine server's own words for a placeholder it cannot replace", () => {
    const packages = new Map([['box-detector', 'archive']]);
    const at = (text: string) => placeholderReplacementError(parsePackageKey(text.slice(2, -1))!, text, packages);
    expect(at('${packages.archive.box-detector}')).toBeUndefined();
    expect(at('${packages.wrench-detector}')).toBe(
      'failed to find a package named "wrench-detector" for placeholder "packages.wrench-detector"',
    );
    expect(at('${packages.box-detector}')).toBe(
      'placeholder "packages.box-detector" is looking for a package of type "ml_model" but a package of type "archive" was found. Try "packages.archive.box-detector"',
    );
  });

  test('entries: name rule, package id, type, duplicates; version latest or empty is fine', () => {
    const packages = [
      { name: '-bad', package: 'org-1/a', type: 'ml_model' },
      { name: 'x'.repeat(201), package: 'org-1/a', type: 'ml_model' },
      { name: 'ok', package: 'no-slash', version: 'latest', type: 'ml_model' },
      { name: 'ok', package: 'org-1/b', version: '', type: 'ml_training' },
      { name: 'fine', package: 'org-1/c', type: 'slam_map' },
      { name: 'broken', type: 'module' },
    ];
    // A package the machine server cannot use fails alone (a warning); an entry that does not decode fails the config.
    expect(errorsOf({ packages }).map((e) => `${e.path} ${e.code}`)).toEqual(['packages[5].package required']);
    expect(validateMachineConfig({ packages }).warnings.map((e) => `${e.path} ${e.code}`)).toEqual([
      'packages[0].name package-name',
      'packages[1].name package-name',
      'packages[2].package package-id',
      'packages[3].type package-type',
      'packages[3].name duplicate-package-name',
    ]);
  });

  test('an unusable packages list reports itself, not every placeholder', () => {
    expect(errorsOf(configWith({ p: '${packages.anything}' }, { not: 'a list' })).map((e) => e.path)).toEqual(['packages']);
    expect(errorsOf(configWith({ p: '${packages.anything}' }, [{ package: 'org-1/a', type: 'ml_model' }])).map((e) => e.path)).toEqual([
      'packages[0].name',
    ]);
  });
});
