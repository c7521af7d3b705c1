import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack, Testing } from 'cdktf';
import { analyzeApp, formatFleetIssue, Machine, ModelType, ModularResource, Module, TrainingJob } from '../../src/constructs';
import { errorsOf, newStack } from './helpers';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-constructs-'));
}

/** A machine with one problem in its resource (a model of no configured module). */
function brokenMachine(stack: TerraformStack, id: string): void {
  const m = new Machine(stack, id);
  new Module(m, 'sensors', { moduleId: 'acme:sensors', version: '~1.2' });
  new ModularResource(m, 'arm', { api: 'rdk:component:arm', model: 'acme:arm-control:six-axis' });
}

describe('validation of a whole app', () => {
  test('reports every problem of every stack at once, in construct tree order', () => {
    const app = Testing.app();
    const a = new TerraformStack(app, 'a');
    const b = new TerraformStack(app, 'b');
    brokenMachine(a, 'one');
    brokenMachine(b, 'two');
    new TrainingJob(b, 'job', { dataset: 'd', modelName: 'bad name', modelVersion: '1', modelType: ModelType.OBJECT_DETECTION, tags: ['x'] });
    expect(errorsOf(app)).toEqual([
      'a/one/arm model model-module-mismatch',
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
    expect(message).toMatch(/\[good\] bad\/broken\/arm: model: model "acme:arm-control:six-axis" of resource "arm" needs a module .* \(hint: add a module/);
    expect(fs.existsSync(path.join(outdir, 'stacks', 'good', 'cdk.tf.json'))).toBe(false);
    expect(fs.existsSync(path.join(outdir, 'stacks', 'bad', 'cdk.tf.json'))).toBe(false);
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
      ['fleet/m/sensors', '@cdktf/warn', 'name: module name "sensors" does not follow the convention <namespace>_<module-name> (hint: name it "acme_sensors")'],
    ]);
  });

  test('the validation follows changes to the construct tree between synths', () => {
    const { app, stack } = newStack('s');
    const m = new Machine(stack, 'm');
    const sensors = new Module(m, 'sensors', { moduleId: 'acme:sensors', version: '~1.2' });
    expect(() => Testing.synth(stack, true)).not.toThrow();
    new ModularResource(m, 'arm', { api: 'rdk:component:arm', model: 'acme:arm-control:six-axis' });
    expect(() => Testing.synth(stack, true)).toThrow(/\[s\/m\/arm\] model:/);
    expect(errorsOf(app)).toEqual(['s/m/arm model model-module-mismatch']);
    expect(sensors.node.metadata.filter((e) => e.type === '@cdktf/warn')).toEqual([]);
  });

  test('issues print as path: field: message with the hint on its own line', () => {
    const { app, stack } = newStack('s');
    brokenMachine(stack, 'm');
    const [issue] = analyzeApp(app).issues;
    expect(issue && formatFleetIssue(issue)).toBe(
      's/m/arm: model: model "acme:arm-control:six-axis" of resource "arm" needs a module with module_id "acme:arm-control"; configured module ids: acme:sensors\n' +
        '  hint: add a module with "module_id": "acme:arm-control", or change the model to one of a configured module',
    );
  });

  test('the report counts what the app declares', () => {
    const { app, stack } = newStack('s');
    new Machine(stack, 'a');
    new Machine(stack, 'b');
    expect(analyzeApp(app).report.summary).toEqual({ stacks: 1, machines: 2, datasets: 0, trainingJobs: 0 });
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
    expect(analysis.report.summary).toEqual({ stacks: 1, machines: 1, datasets: 0, trainingJobs: 0 });
    expect(m.toMachineConfig()).toEqual({ components: [], services: [], modules: [] });
  });
});
