/**
 * Data pipelines through `fleetform apply` on the emulator: created, renamed and disabled in
 * place (same id), replaced for a new query; and adopted: `fleetform adopt` writes a
 * DataPipeline for a pipeline made outside code, and the plan after it says "No changes".
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { DataPipeline, FleetProvider, type DataPipelineProps } from '../../src';
import { startEmulator } from '../../src/emulator';
import { createServiceClient } from '../../src/api/client';
import type { JsonObject } from '../../src/domain/json-value';
import { fleetform, newAdoptionProject, openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(180_000);

const ADDRESS = 'fleetform_data_pipeline.temps';
const match = { $match: { component_name: 'thermometer' } };

function synth(project: EmulatorProject, props: DataPipelineProps): void {
  const app = new App({ outdir: project.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  new DataPipeline(stack, 'temps', props);
  app.synth();
}

async function idOf(project: EmulatorProject): Promise<string> {
  const id = (await project.backend().read('fleet')).resources[ADDRESS]?.ids.id;
  if (!id) throw new Error(`no id in state for ${ADDRESS}`);
  return id;
}

test('fleetform apply: create, rename and disable in place, a new query replaces', async () => {
  const p = await openEmulatorProject('ff-pipelines-');
  try {
    const pipelines = p.client.dataPipelinesClient;
    synth(p, { name: 'temps', schedule: '0 * * * *', query: [match] });
    const created = await p.run('apply', '--auto-approve');
    expect(created.code).toBe(0);
    const id = await idOf(p);
    expect(await pipelines.getDataPipeline(id)).toMatchObject({ name: 'temps', enabled: true, stages: [match], schedule: '0 * * * *' });
    expect((await p.run('plan', '--detailed-exitcode')).code).toBe(0);

    synth(p, { name: 'temperatures', schedule: '0 * * * *', query: [match], enabled: false });
    const inPlace = await p.run('plan');
    expect(inPlace.stdout).toContain(`# ${ADDRESS} will be updated in-place`);
    expect(inPlace.stdout).toContain('last_run: none yet');
    expect((await p.run('apply', '--auto-approve')).code).toBe(0);
    expect(await idOf(p)).toBe(id);
    expect(await pipelines.getDataPipeline(id)).toMatchObject({ name: 'temperatures', enabled: false });

    synth(p, { name: 'temperatures', schedule: '0 * * * *', query: [match, { $limit: 10 }], enabled: false });
    const replace = await p.run('plan');
    expect(replace.stdout).toContain('replacement forced by: query');
    expect(replace.stdout).toContain('the service changes no query of a pipeline in place');
    expect((await p.run('apply', '--auto-approve')).code).toBe(0);
    const newId = await idOf(p);
    expect(newId).not.toBe(id);
    expect(await pipelines.getDataPipeline(id)).toBeUndefined();
    expect(await pipelines.getDataPipeline(newId)).toMatchObject({ enabled: false, stages: [match, { $limit: 10 }] });
    expect((await p.run('plan', '--detailed-exitcode')).code).toBe(0);

    // A schedule that is not five cron fields stops the app's synth, before any plan.
    expect(() => synth(p, { name: 'temperatures', schedule: '0 * * *', query: [match] })).toThrow(
      /schedule "0 \* \* \*" has 4 fields, not 5/,
    );
  } finally {
    await p.close();
  }
});

test('fleetform adopt writes a DataPipeline for a pipeline made outside code; the plan after it says No changes', async () => {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-adopt-pipelines-emu-'));
  const emulator = await startEmulator({ dataDir, port: 0 });
  const project = await newAdoptionProject('ff-adopt-pipelines-', 'adopt-pipelines');
  const c = emulator.credentials;
  const client = await createServiceClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: c.apiKeyId, payload: c.apiKey },
  });
  try {
    const env = { FLEETFORM_ENDPOINT: emulator.url, FLEETFORM_API_KEY: c.apiKey, FLEETFORM_API_KEY_ID: c.apiKeyId };
    const stages: JsonObject[] = [{ $match: { b: 1, a: 'x' } }, { $group: { _id: '$robot_id', n: { $sum: 1 } } }];
    const id = await client.dataPipelinesClient.createDataPipeline({
      organizationId: c.organizationId,
      name: 'hourly-counts',
      stages,
      schedule: '0 * * * *',
      dataSourceType: 'hot_storage',
    });
    await client.dataPipelinesClient.setDataPipelineEnabled(id, false);

    const adopted = await fleetform(project, ['adopt'], env);
    expect(adopted.stderr).toBe('');
    expect(adopted.code).toBe(0);
    const code = await fs.readFile(path.join(project, 'stacks', 'adopted.ts'), 'utf8');
    expect(code).toContain("new DataPipeline(this, 'hourly-counts'");
    expect(code).toContain("dataSourceType: 'hot_storage'");
    expect(code).toContain('enabled: false');
    expect(code).toMatch(/\$match: \{ b: 1, a: 'x' \}/);
    const plan = await fleetform(project, ['plan'], env);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('No changes.');
  } finally {
    await client.close();
    await emulator.close();
    for (const d of [dataDir, project]) await fs.rm(d, { recursive: true, force: true });
  }
});
