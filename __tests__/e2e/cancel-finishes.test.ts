/**
 * A cancel finishes by itself, as on the service: after a replace whose first cancel
 * failed, the recovery apply starts the cancel, the emulator finishes it with no control
 * call, the apply after that removes the canceled job, and `plan --detailed-exitcode`
 * exits 0 (embedded emulator, the CLI only). Before the emulator's clock moved jobs, the
 * cancel never finished and every plan exited 2.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FAULTS_ENV, TRAINING_DURATION_ENV } from '../../src/emulator';
import { fleetform, synthFleet } from './fleet-fixture';
import { waitUntil } from '../emulator/helpers';

jest.setTimeout(180_000);

let dir: string | undefined;
afterEach(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
  dir = undefined;
});

test('after a replace whose cancel failed, the recovery apply cancels, the cancel finishes by itself, and plan settles to no changes', async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-cancel-finishes-'));
  const cwd = dir;
  const outdir = path.join(cwd, 'cdktf.out');
  // Training takes 40 s (so the first job is still running at the replace); a cancel takes 4 s.
  const env = { [TRAINING_DURATION_ENV]: '40s' };
  const run = (args: string[], extra: Record<string, string> = {}) =>
    fleetform(cwd, [...args, '--synth-out', outdir], { ...env, ...extra });

  synthFleet(outdir, { machines: ['picker-1'], jobVersion: '1' });
  expect((await run(['apply', '--auto-approve'])).code).toBe(0);

  synthFleet(outdir, { machines: ['picker-1'], jobVersion: '2' });
  // Every cancel of this apply fails (beyond the client's retry).
  const failed = await run(['apply', '--auto-approve'], { [FAULTS_ENV]: 'CancelTrainingJob:unavailable' });
  expect(failed.code).not.toBe(0);
  expect(failed.stdout).toContain('CancelTrainingJob failed: UNAVAILABLE');

  const recovery = await run(['apply', '--auto-approve']);
  expect(recovery.code).toBe(0);
  expect(recovery.stdout).toContain('1 still being deleted on the service');
  const waiting = await run(['plan', '--detailed-exitcode']);
  expect(waiting.code).toBe(2);
  expect(waiting.stdout).toContain('deletion started earlier and is not finished yet');

  // Plans only read: the emulator finishes the cancel on its own clock.
  const canceled = await waitUntil(
    'the old job reads CANCELED',
    () => run(['plan']),
    (r) => r.stdout.includes('status: TRAINING_STATUS_CANCELED'),
    60_000,
  );
  expect(canceled.code).toBe(0);
  // The canceled job is deleted from the service and from state by the next apply.
  const cleanup = await run(['apply', '--auto-approve']);
  expect(cleanup.code).toBe(0);
  expect(cleanup.stdout).toContain('0 added, 0 changed, 1 destroyed.');
  expect(cleanup.stdout).not.toContain('still being deleted');
  const settled = await run(['plan', '--detailed-exitcode']);
  expect(settled.stderr).toBe('');
  expect(settled.code).toBe(0);
});
