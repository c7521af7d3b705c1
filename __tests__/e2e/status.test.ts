import { Code } from '@connectrpc/connect';
import { EmulatorService } from '../../src/api/emulator-control';
import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(120_000);

let p: EmulatorProject;

beforeAll(async () => {
  p = await openEmulatorProject('ff-status-');
  p.synth({ machines: ['picker-1'] });
  const apply = await p.run('apply', '--auto-approve');
  if (apply.code !== 0) throw new Error(`setup apply failed: ${apply.stdout}${apply.stderr}`);
});

afterAll(async () => {
  await p?.close();
});

test('status shows each module card; a registry read that fails is an error and exit 1, not a module without versions', async () => {
  const ok = await p.runBare('status');
  expect(ok.stderr).toBe('');
  expect(ok.code).toBe(0);
  expect(ok.stdout).toMatch(/fleet\s+picker-1\s+acme_sensors\s+acme:sensors\s+~1\.2\s+1\.2\.\d+\s+\S+\s+(yes|no)/);

  const controls = p.client.clientFor(EmulatorService);
  await controls.injectFault({ method: 'GetModule', code: Code.Unavailable, message: 'registry offline', count: 100 });
  try {
    const failed = await p.runBare('status');
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('the registry could not be read for module acme:sensors');
    expect(failed.stderr).toContain('registry offline');
    expect(failed.stdout).toMatch(/picker-1\s+acme_sensors\s+acme:sensors\s+~1\.2\s+ERROR\s+ERROR\s+ERROR/);
  } finally {
    await controls.clearFaults({});
  }
});
