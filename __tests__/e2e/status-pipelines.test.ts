/**
 * `fleetform status` lists each managed data pipeline's newest three runs: after the
 * emulator's clock passes five ticks of their schedule, a pipeline of known stages shows its runs
 * completed, one with a stage the emulator does not run shows them failed with why, and a
 * disabled one shows none; `--json` carries the same.
 */
import { App, TerraformStack } from 'cdktf';
import { DataPipeline, FleetProvider } from '../../src';
import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(180_000);

let p: EmulatorProject;

beforeAll(async () => {
  p = await openEmulatorProject('ff-status-pipelines-', { clock: 'frozen' });
});

afterAll(async () => {
  await p?.close();
});

interface RunsJson {
  dataPipelines: Array<{
    address: string;
    name: string;
    state: string;
    runs: Array<{ status: string; startTime?: string; error?: string }>;
  }>;
}

test('status shows each pipeline with its newest runs: completed, failed with the error, none yet', async () => {
  const app = new App({ outdir: p.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  new DataPipeline(stack, 'counts', {
    name: 'counts',
    schedule: '* * * * *',
    query: [{ $match: { component_name: 'cpu' } }, { $count: 'n' }],
  });
  new DataPipeline(stack, 'export', { name: 'export', schedule: '* * * * *', query: [{ $match: {} }, { $out: 'elsewhere' }] });
  new DataPipeline(stack, 'paused', { name: 'paused', schedule: '* * * * *', query: [{ $match: {} }], enabled: false });
  app.synth();
  const applied = await p.run('apply', '--auto-approve');
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);

  const before = await p.runBare('status');
  expect(before.code).toBe(0);
  expect(before.stdout).toMatch(/fleet\s+fleetform_data_pipeline\.counts\s+counts\s+enabled\s+none yet/);

  expect((await p.runBare('emulator', 'clock', 'step', '300s')).code).toBe(0);
  const status = await p.runBare('status');
  expect(status.stderr).toBe('');
  expect(status.code).toBe(0);
  const lines = status.stdout.split('\n');
  const header = lines.findIndex((l) => /^STACK\s+DATA PIPELINE\s+NAME\s+STATE\s+RUN\s+STARTED\s+ENDED\s+ERROR/.test(l));
  expect(header).toBeGreaterThanOrEqual(0);
  const at = (address: string): number => lines.findIndex((l) => l.includes(address));
  expect(lines[at('fleetform_data_pipeline.counts')]).toMatch(/counts\s+enabled\s+completed\s+\d{4}-\d\d-\d\dT[\d:.]+Z\s+\d{4}-/);
  // The second run of a pipeline on the line after its first, under the same pipeline.
  expect(lines[at('fleetform_data_pipeline.counts') + 1]).toMatch(/^\s+completed\s+\d{4}-/);
  expect(lines[at('fleetform_data_pipeline.export')]).toMatch(/export\s+enabled\s+failed\s+.*\$out/);
  expect(lines[at('fleetform_data_pipeline.paused')]).toMatch(/paused\s+disabled\s+none yet/);

  const json = JSON.parse((await p.runBare('status', '--json')).stdout) as RunsJson;
  const byName = new Map(json.dataPipelines.map((d) => [d.name, d]));
  // Five ticks passed: the newest three are shown.
  expect(byName.get('counts')?.runs.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
  const [newest, older] = byName.get('counts')?.runs ?? [];
  expect(Date.parse(newest?.startTime ?? '')).toBeGreaterThan(Date.parse(older?.startTime ?? ''));
  expect(byName.get('export')?.runs[0]).toMatchObject({ status: 'failed', error: expect.stringContaining('$out') });
  expect(byName.get('paused')).toMatchObject({ state: 'disabled', runs: [] });
});
