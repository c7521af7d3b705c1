/** A binary and a sequence dataset adopted: the sequence one with its type, the binary one without, and the plan after says "No changes". */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { newAdoptionProject, fleetform, openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(300_000);

let p: EmulatorProject;
let project: string;

beforeAll(async () => {
  p = await openEmulatorProject('ff-adopt-ds-emu-');
  project = await newAdoptionProject('ff-adopt-ds-', 'adopt-datasets');
  await p.client.datasetClient.createDataset('frames', p.credentials.organizationId, 'binary');
  await p.client.datasetClient.createDataset('runs', p.credentials.organizationId, 'sequence');
});

afterAll(async () => {
  await p?.close();
  if (project) await fs.rm(project, { recursive: true, force: true });
});

test('adopted, a sequence dataset is written with its type and a binary one without; the plan then has no changes', async () => {
  const adopted = await fleetform(project, ['adopt'], p.env);
  expect(adopted.stderr).toBe('');
  expect(adopted.code).toBe(0);
  const code = await fs.readFile(path.join(project, 'stacks', 'adopted.ts'), 'utf8');
  expect(code).toContain("new Dataset(this, 'runs', { type: 'sequence' });");
  expect(code).toContain("new Dataset(this, 'frames');");
  const plan = await fleetform(project, ['plan'], p.env);
  expect(plan.code).toBe(0);
  expect(plan.stdout).toContain('No changes.');
});
