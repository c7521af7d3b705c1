/** `fleetform apply` of a sequence dataset with a job on it: the plan warns, the dataset is made as sequences, and a new type replaces it, saying why. */
import { App, TerraformStack } from 'cdktf';
import { Dataset, FleetProvider, ModelType, TrainingJob } from '../../src';
import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(300_000);

let p: EmulatorProject;
beforeAll(async () => {
  p = await openEmulatorProject('ff-ds-types-', { clock: 'frozen' });
});
afterAll(async () => p?.close());

function synth(type: 'binary' | 'sequence', job: boolean): void {
  const app = new App({ outdir: p.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  const runs = new Dataset(stack, 'runs', { type });
  if (job)
    new TrainingJob(stack, 'det', {
      dataset: runs,
      modelName: 'det',
      modelVersion: '1',
      modelType: ModelType.OBJECT_DETECTION,
      tags: ['a'],
    });
  app.synth();
}

test('a sequence dataset is applied as one, a job on it is warned of, and a new type replaces the dataset', async () => {
  synth('sequence', true);
  const planned = await p.run('plan');
  expect(planned.code).toBe(0);
  expect(planned.stdout).toContain('holds sequences, and training jobs train on binary data');
  synth('sequence', false);
  const applied = await p.run('apply', '--auto-approve');
  expect(applied.code).toBe(0);
  const org = p.credentials.organizationId;
  expect((await p.client.datasetClient.listDatasets(org, 'sequence')).map((d) => d.name)).toEqual(['runs']);
  synth('binary', false);
  const replaced = await p.run('plan');
  expect(replaced.code).toBe(0);
  expect(replaced.stdout).toContain("a dataset's type is fixed when it is created");
});
