/**
 * Destroy says plainly what the service is still deleting: a canceled training job is
 * named as in progress (not reported destroyed), and the next destroy finishes it.
 */
import { EmulatorService } from '../../src/api/emulator-control';
import { TrainingStatus } from '../../src/domain';
import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(120_000);

let p: EmulatorProject | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

test('destroy names the deletions still in progress, and a later destroy completes them', async () => {
  p = await openEmulatorProject('ff-destroy-progress-', { clock: 'frozen' });
  p.synth({ machines: ['picker-1'], jobVersion: '1' });
  expect((await p.run('apply', '--auto-approve')).code).toBe(0);
  const jobId = (await p.backend().read('fleet')).resources['fleetform_training_job.detector']?.ids.id as string;

  const first = await p.run('destroy', '--auto-approve');
  expect(first.code).toBe(0);
  expect(first.stdout).toContain('Destroy not finished: 2 destroyed, 1 still being deleted on the service:');
  expect(first.stdout).toContain('  - fleetform_training_job.detector (deletion in progress)');
  expect(first.stdout).not.toContain('Destroy complete!');
  expect(Object.keys((await p.backend().read('fleet')).resources)).toEqual(['fleetform_training_job.detector']);
  expect((await p.client.mlTrainingClient.getTrainingJob(jobId)).status).toBe(TrainingStatus.CANCELING);

  // The service finishes the cancellation.
  await p.client.clientFor(EmulatorService).advanceTrainingJob({ id: jobId, toEnd: true });
  const second = await p.run('destroy', '--auto-approve');
  expect(second.code).toBe(0);
  expect(second.stdout).toContain('Destroy complete! Resources: 0 added, 0 changed, 1 destroyed.');
  expect(Object.keys((await p.backend().read('fleet')).resources)).toEqual([]);
  expect((await p.client.mlTrainingClient.listTrainingJobs(p.credentials.organizationId)).map((j) => j.id)).not.toContain(jobId);
});
