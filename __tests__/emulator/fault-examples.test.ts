/**
 * Fault specs cannot be misspelt: an unknown method or code stops the emulator before it
 * starts and names the nearest real ones; every fault counts the calls it failed; and the
 * examples of docs/emulator.md's "Faults on demand", read from that file, arm faults that fire.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Code } from '@connectrpc/connect';
import { EmulatorService } from '../../src/api/emulator-control';
import { loadServices } from '../../src/api/services';
import { InputError } from '../../src/domain';
import { faultSpecsFromEnv, parseFaultSpec, startEmulator } from '../../src/emulator';
import { firedFaults, serveEmulator } from '../crash/emulator-process';
import { fleetform, synthFleet } from '../e2e/fleet-fixture';
import { scratchDirs } from './fixture';
import { clientOf, codeOf } from './helpers';

const scratch = scratchDirs();
const BIN = path.resolve(__dirname, '../../bin/fleetform.js');

/** The shell block under docs/emulator.md's "Faults on demand" heading. */
function readmeExamples(): { serveFails: string[]; envSpecs: string; envCommand: string[] } {
  const readme = fs.readFileSync(path.resolve(__dirname, '../../docs/emulator.md'), 'utf8');
  const section = readme.split('\n## Faults on demand\n')[1];
  const block = section ? /```sh\n([\s\S]*?)```/.exec(section)?.[1] : undefined;
  if (!block) throw new Error('docs/emulator.md has no sh block under "Faults on demand"');
  const serveFails = [...block.matchAll(/--fail (\S+)/g)].map((m) => m[1] as string);
  const envLine = /^FLEETFORM_EMULATOR_FAIL=(\S+) npx fleetform (\S+(?: \S+)*?)\s*(?:#.*)?$/m.exec(block);
  if (serveFails.length === 0 || !envLine) throw new Error(`docs/emulator.md examples not understood:\n${block}`);
  return { serveFails, envSpecs: envLine[1] as string, envCommand: (envLine[2] as string).split(' ') };
}

async function startError(specs: string[], source = '--fail'): Promise<InputError> {
  const dataDir = path.join(scratch(), 'data');
  try {
    const emulator = await startEmulator({ dataDir, faults: specs.map((s) => parseFaultSpec(s, source)) });
    await emulator.close();
  } catch (err) {
    // Refused before the data folder was made.
    expect(fs.existsSync(dataDir)).toBe(false);
    if (err instanceof InputError) return err;
    throw err;
  }
  throw new Error(`${specs.join(',')} was accepted`);
}

describe('fault specs are checked', () => {
  test('a method no service serves is an error naming the nearest RPCs', async () => {
    const machine = await startError(['NewMachine:deadline_exceeded']);
    expect(machine.path).toBe('--fail');
    expect(machine.message).toContain('"NewMachine"');
    expect(machine.hint).toMatch(/^did you mean NewRobot, /);
    const part = await startError(['CancelTrainingJob', 'UpdateMachinePart:internal:1']);
    expect(part.hint).toMatch(/^did you mean UpdateRobotPart, /);
    const full = await startError(['viam.app.v1.AppService/NewMachine']);
    expect(full.hint).toContain('viam.app.v1.AppService/NewRobot');
  });

  test('FLEETFORM_EMULATOR_FAIL is checked the same way and named in the error', async () => {
    const dataDir = path.join(scratch(), 'data');
    const faults = faultSpecsFromEnv({ FLEETFORM_EMULATOR_FAIL: 'NewRobot,DeleteMachine:internal' });
    const err = await startEmulator({ dataDir, faults }).then(
      async (e) => {
        await e.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).path).toBe('FLEETFORM_EMULATOR_FAIL');
    expect((err as InputError).hint).toMatch(/^did you mean DeleteRobot, /);
    // Machine -> Robot comes first even where another name is closer by letters.
    expect((await startError(['GetMachineParts'])).hint).toMatch(/^did you mean GetRobotParts, /);
  });

  test('an unknown code names the nearest codes', () => {
    expect(() => parseFaultSpec('NewRobot:unavailible', '--fail')).toThrow(InputError);
    try {
      parseFaultSpec('NewRobot:deadline_exeeded', '--fail');
    } catch (err) {
      expect((err as InputError).hint).toMatch(/^nearest: deadline_exceeded, /);
    }
    expect.assertions(2);
  });

  test('the control service refuses an unknown method too, naming the nearest', async () => {
    const emulator = await startEmulator({ dataDir: path.join(scratch(), 'data') });
    try {
      const controls = await clientOf(emulator, EmulatorService);
      const refused = controls.injectFault({ method: 'NewMachine', code: Code.Unavailable, count: 1 });
      expect(await codeOf(refused)).toBe('InvalidArgument');
      await expect(refused).rejects.toThrow(/NewRobot/);
      expect(await codeOf(controls.injectFault({ method: 'NewRobot', code: Code.Unavailable, count: 1 }))).toBe('ok');
    } finally {
      await emulator.close();
    }
  });

  test('every short and full name the emulator serves is accepted', async () => {
    const services = await loadServices();
    const emulator = await startEmulator({
      dataDir: path.join(scratch(), 'data'),
      faults: [services.app, services.dataset, services.mlTraining, services.auth].flatMap((s) =>
        Object.values(s.methods).flatMap((m) => [
          parseFaultSpec(`${m.name}:internal:1`, '--fail'),
          parseFaultSpec(`${s.typeName}/${m.name}:internal:1`, '--fail'),
        ]),
      ),
    });
    await emulator.close();
    expect(emulator.faults().length).toBeGreaterThan(40);
  });
});

describe('faults count what they fired', () => {
  test('a fault reports fired calls up to its count, then calls pass', async () => {
    const emulator = await startEmulator({
      dataDir: path.join(scratch(), 'data'),
      faults: [parseFaultSpec('ListOrganizations:internal:2', '--fail')],
    });
    try {
      expect(emulator.faults()).toEqual([{ method: 'ListOrganizations', code: Code.Internal, armed: 2, fired: 0 }]);
      const app = await clientOf(emulator, (await loadServices()).app);
      expect(await codeOf(app.listOrganizations({}))).toBe('Internal');
      expect(emulator.faults()[0]?.fired).toBe(1);
      expect(await codeOf(app.listOrganizations({}))).toBe('Internal');
      expect(await codeOf(app.listOrganizations({}))).toBe('ok');
      expect(emulator.faults()).toEqual([{ method: 'ListOrganizations', code: Code.Internal, armed: 2, fired: 2 }]);
    } finally {
      await emulator.close();
    }
  });
});

describe("the emulator doc's examples", () => {
  const examples = readmeExamples();

  test('use real RPC names', () => {
    expect(examples.serveFails.length).toBeGreaterThan(0);
    expect(examples.envCommand[0]).toBe('apply');
  });

  test('`emulator serve --fail ...` starts, its faults fire, and it reports them on stop', async () => {
    const emulator = await serveEmulator(path.join(scratch(), 'data'), examples.serveFails);
    const services = await loadServices();
    const { credentials } = emulator;
    // clientOf reads only the address and the key of the emulator it is given.
    const target = { url: emulator.url, credentials } as Parameters<typeof clientOf>[0];
    const app = await clientOf(target, services.app);
    const ml = await clientOf(target, services.mlTraining);
    // Each example method called once: every armed fault fires.
    for (const spec of examples.serveFails) {
      const method = spec.split(':')[0];
      const call =
        method === 'NewRobot'
          ? app.newRobot({ name: 'x', location: credentials.locationId })
          : method === 'CancelTrainingJob'
            ? ml.cancelTrainingJob({ id: 'none' })
            : Promise.reject(new Error(`the test knows no call for ${spec}`));
      expect([spec, await codeOf(call)]).toEqual([spec, Code[parseFaultSpec(spec, '--fail').code]]);
    }
    const out = await emulator.stop();
    expect(firedFaults(out)).toBe(examples.serveFails.length);
    for (const spec of examples.serveFails) expect(out).toContain(`fault ${spec.split(':')[0]}:`);
  }, 30_000);

  test('a misspelt `emulator serve --fail` exits 1 before listening, naming the nearest RPCs', async () => {
    const data = path.join(scratch(), 'data');
    const child = spawn(
      process.execPath,
      [BIN, 'emulator', 'serve', '--port', '0', '--data', data, '--fail', 'NewMachine:deadline_exceeded'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(out).toContain('did you mean NewRobot');
    expect(out).not.toContain('listening');
  }, 30_000);

  test('`FLEETFORM_EMULATOR_FAIL=... fleetform apply` fails the apply with the injected fault and says it fired', async () => {
    const dir = scratch();
    const outdir = path.join(dir, 'cdktf.out');
    synthFleet(outdir, { machines: ['f-a'] });
    const env = { FLEETFORM_EMULATOR_FAIL: examples.envSpecs, FLEETFORM_ENDPOINT: '', FLEETFORM_API_KEY: '', FLEETFORM_API_KEY_ID: '' };
    const run = await fleetform(dir, [...examples.envCommand, '--auto-approve', '--synth-out', outdir], env);
    const method = examples.envSpecs.split(':')[0] as string;
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`${method} failed: INTERNAL: injected fault (${method})`);
    expect(run.stderr).toMatch(new RegExp(`^fault ${method}:\\w+ fired 1 of 1 calls$`, 'm'));
    // The fault was one call: the next apply finishes.
    const again = await fleetform(dir, [...examples.envCommand, '--auto-approve', '--synth-out', outdir], {
      FLEETFORM_ENDPOINT: '',
      FLEETFORM_API_KEY: '',
      FLEETFORM_API_KEY_ID: '',
    });
    expect([again.code, again.stderr]).toEqual([0, '']);
  }, 60_000);
});
