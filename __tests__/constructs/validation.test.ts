import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack, Testing } from 'cdktf';
import { TerraformResource } from 'cdktf';
import type { Construct } from 'constructs';
import {
  analyzeApp,
  CustomTrainingJob,
  Dataset,
  formatFleetIssue,
  Machine,
  ModelType,
  ModularResource,
  Module,
  TrainingJob,
} from '../../src/constructs';
import { registerChecks } from '../../src/constructs/checks';
import { markConstructType, type ConstructType } from '../../src/constructs/construct-types';
import { registerFleetConstruct } from '../../src/constructs/registry';
import { errorsOf, newStack } from './helpers';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-constructs-'));
}

/**
 * A machine with one problem the machine server cannot load (an env entry no process can
 * receive), and one that only fails its resource at run time (a model of no configured
 * module: a warning).
 */
function brokenMachine(stack: TerraformStack, id: string): void {
  const m = new Machine(stack, id);
  new Module(m, 'sensors', { moduleId: 'acme:sensors', version: '~1.2', env: { 'A=B': 'x' } });
  new ModularResource(m, 'arm', { api: 'rdk:component:arm', model: 'acme:arm-control:six-axis' });
}

describe('validation of a whole app', () => {
  test('reports every problem of every stack at once, in construct tree order', () => {
    const app = Testing.app();
    const a = new TerraformStack(app, 'a');
    const b = new TerraformStack(app, 'b');
    brokenMachine(a, 'one');
    brokenMachine(b, 'two');
    new TrainingJob(b, 'job', {
      dataset: 'd',
      modelName: 'bad name',
      modelVersion: '1',
      modelType: ModelType.OBJECT_DETECTION,
      tags: ['x'],
    });
    expect(errorsOf(app)).toEqual([
      'a/one/sensors env["A=B"] env-name',
      'a/one/arm model model-module-mismatch',
      'b/two/sensors env["A=B"] env-name',
      'b/two/arm model model-module-mismatch',
      'b/job modelName training-model-name',
    ]);
  });

  test('app.synth() fails on the first stack with every error of the app, and writes no stack', () => {
    const outdir = tempDir();
    const app = new App({ outdir });
    const good = new TerraformStack(app, 'good');
    new Machine(good, 'fine');
    const bad = new TerraformStack(app, 'bad');
    brokenMachine(bad, 'broken');
    let message = '';
    try {
      app.synth();
    } catch (err) {
      message = String(err);
    }
    expect(message).toMatch(/\[good\] bad\/broken\/sensors: env\["A=B"\]: .* \(hint: use letters/);
    expect(fs.existsSync(path.join(outdir, 'stacks', 'good', 'cdk.tf.json'))).toBe(false);
    expect(fs.existsSync(path.join(outdir, 'stacks', 'bad', 'cdk.tf.json'))).toBe(false);
  });

  test('an app made with skipValidation checks no machine config at synth: the config is written as declared', () => {
    const outdir = tempDir();
    const app = new App({ outdir, skipValidation: true });
    const stack = new TerraformStack(app, 'fleet');
    brokenMachine(stack, 'broken');
    app.synth();
    const doc = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', 'fleet', 'cdk.tf.json'), 'utf8')) as {
      resource: { fleetform_machine: Record<string, { config: string }> };
    };
    expect(JSON.parse(doc.resource.fleetform_machine.broken?.config ?? '{}').components).toEqual([
      expect.objectContaining({ name: 'arm', model: 'acme:arm-control:six-axis' }),
    ]);
    expect(analyzeApp(app).issues).toEqual([]);
    // The same app validated finds the problem.
    const checked = Testing.app();
    brokenMachine(new TerraformStack(checked, 'fleet'), 'broken');
    expect(errorsOf(checked)).toEqual(['fleet/broken/sensors env["A=B"] env-name', 'fleet/broken/arm model model-module-mismatch']);
  });

  test('warnings do not fail synth; they land in the manifest as annotations', () => {
    const outdir = tempDir();
    const app = new App({ outdir });
    const stack = new TerraformStack(app, 'fleet');
    const m = new Machine(stack, 'm');
    new Module(m, 'sensors', { moduleId: 'acme:sensors', version: '~1.2', name: 'sensors' });
    app.synth();
    const manifest = JSON.parse(fs.readFileSync(path.join(outdir, 'manifest.json'), 'utf8')) as {
      stacks: Record<string, { annotations: Array<{ constructPath: string; level: string; message: string }> }>;
    };
    expect(manifest.stacks.fleet?.annotations.map((a) => [a.constructPath, a.level, a.message])).toEqual([
      [
        'fleet/m/sensors',
        '@cdktf/warn',
        'name: module name "sensors" does not follow the convention <namespace>_<module-name> (hint: name it "acme_sensors")',
      ],
    ]);
  });

  test('the validation follows changes to the construct tree between synths', () => {
    const { app, stack } = newStack('s');
    const m = new Machine(stack, 'm');
    const sensors = new Module(m, 'sensors', { moduleId: 'acme:sensors', version: '~1.2' });
    expect(() => Testing.synth(stack, true)).not.toThrow();
    new Module(m, 'arm', { moduleId: 'acme:arm-control', version: '~1.2', env: { 'A=B': 'x' } });
    expect(() => Testing.synth(stack, true)).toThrow(/\[s\/m\/arm\] env\["A=B"\]:/);
    expect(errorsOf(app)).toEqual(['s/m/arm env["A=B"] env-name']);
    expect(sensors.node.metadata.filter((e) => e.type === '@cdktf/warn')).toEqual([]);
  });

  test('issues print as path: field: message with the hint on its own line', () => {
    const { app, stack } = newStack('s');
    brokenMachine(stack, 'm');
    const issue = analyzeApp(app).issues.find((i) => i.constructPath.endsWith('arm'));
    expect(issue && formatFleetIssue(issue)).toBe(
      's/m/arm: model: resource "arm" will not start: model "acme:arm-control:six-axis" needs a module with module_id "acme:arm-control"; configured module ids: acme:sensors\n' +
        '  hint: add a module with "module_id": "acme:arm-control", or change the model to one of a configured module; ' +
        `or, if the machine is to stay so, acknowledge it: acknowledged: [{ code: 'model-module-mismatch', path: "components.arm.model", reason: '...' }]`,
    );
  });

  test('the report counts what the app declares', () => {
    const { app, stack } = newStack('s');
    new Machine(stack, 'a');
    new Machine(stack, 'b');
    new Dataset(stack, 'images');
    expect(analyzeApp(app).report.summary).toEqual({ stacks: 1, resources: { fleetform_machine: 2, fleetform_dataset: 1 } });
  });

  test('a construct whose constructor threw (the app caught it) is passed by, not analyzed half made', () => {
    const { app, stack } = newStack('s');
    const m = new Machine(stack, 'm');
    const refused = [
      () => new Module(m, 'sensors', { moduleId: 'acme:sensors', modulId: 'typo' } as never),
      () => new ModularResource(m, 'arm', { bogus: 1 } as never),
      () => new Machine(stack, 'other', { bogus: 1 } as never),
      () => new TrainingJob(stack, 'job', { bogus: 1 } as never),
    ];
    for (const construct of refused) expect(construct).toThrow(/prop/);
    const analysis = analyzeApp(app);
    expect(analysis.issues).toEqual([]);
    expect(analysis.report.summary).toEqual({ stacks: 1, resources: { fleetform_machine: 1 } });
    expect(m.toMachineConfig()).toEqual({ components: [], services: [], modules: [] });
  });
});

/** A resource of a kind added later, as docs/adding-a-kind.md declares one; its logical id is its construct id. */
function noteClass(kind: ConstructType & `fleetform_${string}`) {
  return class Note extends TerraformResource {
    constructor(scope: Construct, id: string) {
      super(scope, id, { terraformResourceType: kind });
      markConstructType(this, kind);
      this.overrideLogicalId(id.replace(/\W/g, '_'));
      registerFleetConstruct(this);
    }
  };
}

describe('checks registered by each kind of construct', () => {
  test('a resource of a new kind is counted by its type and checked for a shared address without registering anything', () => {
    const Note = noteClass('fleetform_registered_note');
    registerChecks('fleetform_registered_note', { acrossStack: 'none' });
    const { app, stack } = newStack('s');
    new Note(stack, 'a-b');
    new Note(stack, 'a_b');
    const analysis = analyzeApp(app);
    expect(analysis.report.summary).toEqual({ stacks: 1, resources: { fleetform_registered_note: 2 } });
    expect(analysis.issues.map((i) => [i.constructPath, i.code])).toEqual([['s/a_b', 'address-collision']]);
  });

  test('a construct whose kind registered no checks is an error, not passed by', () => {
    const Note = noteClass('fleetform_unregistered_note');
    const { app, stack } = newStack('s');
    new Note(stack, 'n');
    expect(analyzeApp(app).issues).toEqual([
      {
        severity: 'error',
        code: 'unchecked-kind',
        constructPath: 's/n',
        field: '',
        message: 'no checks are registered for constructs of kind fleetform_unregistered_note',
        hint: 'the module defining the construct registers its checks with registerChecks',
      },
    ]);
  });

  test('both kinds of training job are checked together: a model version is unique across them', () => {
    const { app, stack } = newStack('s');
    new TrainingJob(stack, 'a', { dataset: 'd', modelName: 'm', modelVersion: '1', modelType: ModelType.OBJECT_DETECTION, tags: ['x'] });
    new CustomTrainingJob(stack, 'b', {
      dataset: 'd',
      modelName: 'm',
      modelVersion: '1',
      registryItemId: 'acme:train',
      registryItemVersion: '1.0.0',
    });
    expect(analyzeApp(app).issues.map((i) => [i.constructPath, i.code])).toEqual([['s/b', 'duplicate-model-version']]);
  });
});
