import {
  CustomTrainingJob,
  Dataset,
  FleetProvider,
  Machine,
  ModelType,
  ModularResource,
  Module,
  Secret,
  TrainingJob,
} from '../../src/constructs';
import { PropsError } from '../../src/constructs/props';
import { newStack } from './helpers';

/** Calls a construct the way a JavaScript app would: props unchecked by the compiler. */
function untyped<T>(props: Record<string, unknown>): T {
  return props as T;
}

function thrown(make: () => unknown): PropsError {
  try {
    make();
  } catch (err) {
    if (err instanceof PropsError) return err;
    throw err;
  }
  throw new Error('expected a PropsError, nothing was thrown');
}

describe('construct props are checked at construction', () => {
  test('an unknown prop names the construct path, the prop and the nearest valid name', () => {
    const { stack } = newStack('warehouse');
    const machine = new Machine(stack, 'picker-1');
    const err = thrown(() => new Module(machine, 'sensors', untyped({ moduleId: 'acme:sensors', verison: '1.2.3' })));
    expect(err.path).toBe('warehouse/picker-1/sensors');
    expect(err.message).toBe('Module: unknown prop "verison"');
    expect(err.hint).toContain('did you mean "version"?');
    expect(err.hint).toContain('Module takes: moduleId, name, version, executablePath, env, sensitiveEnv');
  });

  test('a string where an array is expected is an error, never split into characters', () => {
    const { stack } = newStack();
    const err = thrown(
      () =>
        new TrainingJob(
          stack,
          'job',
          untyped({ dataset: 'd', modelName: 'm', modelVersion: '1', modelType: ModelType.OBJECT_DETECTION, tags: 'cat' }),
        ),
    );
    expect(err.message).toBe('TrainingJob: "tags": expected array, got the string "cat"');
    expect(err.path).toBe('stack/job');
  });

  test('a missing required prop is named', () => {
    const { stack } = newStack();
    const err = thrown(
      () => new CustomTrainingJob(stack, 'job', untyped({ dataset: 'd', modelName: 'm', modelVersion: '1', registryItemId: 'acme:t' })),
    );
    expect(err.message).toBe('CustomTrainingJob: "registryItemVersion" is required');
  });

  test('several problems are reported together', () => {
    const { stack } = newStack();
    const machine = new Machine(stack, 'm');
    const err = thrown(() => new ModularResource(machine, 'r', untyped({ api: 7, modle: 'a:b:c' })));
    expect(err.message).toMatch(/^ModularResource has 3 wrong props: /);
    expect(err.message).toContain('unknown prop "modle"');
    expect(err.message).toContain('"api": expected string, got a number');
    expect(err.message).toContain('"model" is required');
    expect(err.hint).toContain('did you mean "model"?');
  });

  test('wrong enum values, wrong references and wrong nested values are refused', () => {
    const { stack } = newStack();
    expect(
      () => new TrainingJob(stack, 'a', untyped({ dataset: 'd', modelName: 'm', modelVersion: '1', modelType: 42, tags: ['x'] })),
    ).toThrow(PropsError);
    expect(
      () => new TrainingJob(stack, 'b', untyped({ dataset: 12, modelName: 'm', modelVersion: '1', modelType: 1, tags: ['x'] })),
    ).toThrow(/"dataset"/);
    const machine = new Machine(stack, 'm');
    expect(() => new Module(machine, 'x', untyped({ env: { PORT: 8080 } }))).toThrow(
      /"env\.PORT": expected string or a Secret \(Secret\.fromEnv, Secret\.fromFile\), got a number/,
    );
    expect(() => new Dataset(stack, 'd', untyped({ nmae: 'x' }))).toThrow(/unknown prop "nmae"/);
    expect(() => new FleetProvider(stack, 'p', untyped({ endpont: 'https://x' }))).toThrow(PropsError);
  });

  test('every documented prop is accepted', () => {
    const { stack } = newStack();
    new FleetProvider(stack, 'cloud', { organizationId: 'o', locationId: 'l', endpoint: 'https://example.com:443' });
    const machine = new Machine(stack, 'm', { name: 'm', locationId: 'l' });
    const mod = new Module(machine, 'sensors', {
      moduleId: 'acme:sensors',
      name: 'acme_sensors',
      version: '~1.2',
      env: { A: 'b' },
      sensitiveEnv: { API_TOKEN: Secret.plainText('t') },
    });
    new Module(machine, 'local', { name: 'drive', executablePath: '/opt/drive' });
    const board = new ModularResource(machine, 'board', {
      name: 'board-1',
      api: 'rdk:component:board',
      model: mod.model('pi'),
      attributes: { pin: 1 },
    });
    new ModularResource(machine, 'sensor', { api: 'rdk:component:sensor', model: mod.model('hc'), dependsOn: [board, 'board-1'] });
    const data = new Dataset(stack, 'boxes', { name: 'boxes', organizationId: 'o' });
    new TrainingJob(stack, 'job', {
      dataset: data,
      organizationId: 'o',
      modelName: 'm',
      modelVersion: '1',
      modelType: ModelType.OBJECT_DETECTION,
      tags: ['box'],
      retainOnDelete: true,
    });
    new CustomTrainingJob(stack, 'custom', {
      dataset: 'dataset-id',
      modelName: 'm2',
      modelVersion: '1',
      registryItemId: 'acme:trainer',
      registryItemVersion: '0.3.0',
      arguments: { epochs: '3' },
      containerVersion: 'v1',
    });
  });

  test("a prop written as the service's JSON names it (snake_case) names its camelCase form, on every construct", () => {
    const { stack } = newStack('fleet');
    const machine = new Machine(stack, 'm');
    const cases: Array<[() => unknown, string]> = [
      [() => new Module(machine, 'a', untyped({ module_id: 'acme:sensors' })), 'moduleId'],
      [() => new Module(machine, 'b', untyped({ moduleId: 'acme:sensors', executable_path: '/bin/x' })), 'executablePath'],
      [() => new Module(machine, 'c', untyped({ moduleId: 'acme:sensors', sensitive_env: {} })), 'sensitiveEnv'],
      [() => new ModularResource(machine, 'r', untyped({ api: 'rdk:component:arm', model: 'acme:arm:x', depends_on: [] })), 'dependsOn'],
      [() => new FleetProvider(stack, 'p', untyped({ organization_id: 'o' })), 'organizationId'],
      [() => new FleetProvider(stack, 'q', untyped({ location_id: 'l' })), 'locationId'],
      [
        () =>
          new TrainingJob(
            stack,
            'j',
            untyped({ dataset: 'd', model_name: 'm', modelVersion: '1', modelType: ModelType.OBJECT_DETECTION, tags: ['x'] }),
          ),
        'modelName',
      ],
    ];
    for (const [make, camel] of cases) {
      const err = thrown(make);
      expect(err.hint).toContain(`did you mean "${camel}"? props are camelCase`);
    }
  });

  test('Module takes type as the service names it; a type that disagrees with executablePath is an error', () => {
    const { stack } = newStack('fleet');
    const machine = new Machine(stack, 'm');
    expect(new Module(machine, 'reg', { moduleId: 'acme:sensors', type: 'registry' }).type).toBe('registry');
    expect(new Module(machine, 'loc', { name: 'local-one', type: 'local', executablePath: '/opt/x' }).type).toBe('local');
    const missing = thrown(() => new Module(machine, 'bad', { name: 'bad', type: 'local' }));
    expect(missing.message).toBe('Module: type "local" disagrees with executablePath');
    expect(missing.hint).toContain('give it');
    const extra = thrown(() => new Module(machine, 'bad2', { moduleId: 'acme:sensors', type: 'registry', executablePath: '/opt/x' }));
    expect(extra.hint).toContain('remove it, or set type "local"');
    expect(thrown(() => new Module(machine, 'bad3', untyped({ moduleId: 'acme:sensors', type: 'remote' }))).message).toContain('"type"');
  });
});
