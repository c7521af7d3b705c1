/**
 * A secret given by reference: synthesis writes the reference in the machine's `secrets`
 * (by the path of its value) and nothing at that path of its `config`; a value the app
 * holds is refused with a hint unless fleetform's engine runs the app (its channel is a pipe).
 */
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Machine, Module, Remote, Secret, SecretValueRefusedError } from '../../src/constructs';
import { configSecrets } from '../../src/constructs/secret';
import { FleetformError } from '../../src/domain/errors';
import { errorsOf, machineConfig, newStack, resourceOf, synth } from './helpers';

test('a module env entry given by reference is synthesized as the reference, by its path, never in config', () => {
  const { app, stack } = newStack();
  const m = new Machine(stack, 'm');
  new Module(m, 'sensors', {
    moduleId: 'acme:sensors',
    version: '1.2.3',
    env: { PATH: '/opt/bin', API_TOKEN: Secret.fromEnv('ACME_TOKEN') },
    sensitiveEnv: { CERT: Secret.fromFile('/run/secrets/acme cert') },
  });
  expect(errorsOf(app)).toEqual([]);
  const doc = synth(stack);
  const machine = resourceOf(doc, 'fleetform_machine', 'm');
  expect(machine.secrets).toEqual({
    'modules.acme_sensors.env.API_TOKEN': { from: 'env', name: 'ACME_TOKEN' },
    'modules.acme_sensors.env.CERT': { from: 'file', path: '/run/secrets/acme cert' },
  });
  expect(machine.secret_env).toBeUndefined();
  expect(machineConfig(doc, 'm').modules).toEqual([
    { type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '1.2.3', env: { PATH: '/opt/bin' } },
  ]);
});

test('a module whose env is all references synthesizes no env; an environment placeholder is no secret and stays in config', () => {
  const { stack } = newStack();
  const m = new Machine(stack, 'm');
  new Module(m, 'a', { moduleId: 'acme:a', version: '1.0.0', env: { API_TOKEN: Secret.fromEnv('A_TOKEN') } });
  new Module(m, 'b', { moduleId: 'acme:b', version: '1.0.0', env: { DB_PASSWORD: '${environment.DB_PASSWORD}' } });
  const doc = synth(stack);
  const machine = resourceOf(doc, 'fleetform_machine', 'm');
  expect(machine.secrets).toEqual({ 'modules.acme_a.env.API_TOKEN': { from: 'env', name: 'A_TOKEN' } });
  expect(machine.secret_env).toBeUndefined();
  expect(machineConfig(doc, 'm').modules.map((x) => x.env)).toEqual([undefined, { DB_PASSWORD: '${environment.DB_PASSWORD}' }]);
});

test('a Secret anywhere in a config document is a reference by its path, list entries by name', () => {
  const token = Secret.fromEnv('REMOTE_SECRET');
  const doc = {
    remotes: [{ name: 'arm', address: 'arm.local', auth: { credentials: { type: 'robot-location-secret', payload: token } } }],
    processes: [{ id: 'p', env: { X: 'y' } }],
  };
  const found = configSecrets(doc);
  expect(found.references).toEqual({ 'remotes.arm.auth.credentials.payload': { from: 'env', name: 'REMOTE_SECRET' } });
  expect(found.config.remotes[0]?.auth.credentials.payload).toBe('<secret from environment variable REMOTE_SECRET>');
  // The document given is not changed, nor the parts without a secret copied.
  expect(doc.remotes[0]?.auth.credentials.payload).toBe(token);
  expect(found.config.processes).toBe(doc.processes);
});

const CHANNEL = 'FLEETFORM_SECRET_CHANNEL_FD';

function refusal(value: string): FleetformError {
  try {
    Secret.fromValue(value);
  } catch (err) {
    return err as FleetformError;
  }
  throw new Error('Secret.fromValue took a value with no channel');
}

test('a value the app holds, with no engine running the app, is refused with the references to use instead', () => {
  expect(process.env[CHANNEL]).toBeUndefined();
  const thrown = refusal('hunter2-value');
  expect(thrown).toBeInstanceOf(SecretValueRefusedError);
  expect(thrown.message).toContain('not run by fleetform');
  expect(thrown.message).not.toContain('hunter2-value');
  expect(thrown.hint).toMatch(/Secret\.fromEnv/);
  expect(thrown.hint).toMatch(/Secret\.fromFile/);
});

test('a channel that is not a pipe (a file, a closed descriptor) is refused and never written', () => {
  const file = path.join(os.tmpdir(), `ff-channel-${process.pid}-${Date.now()}`);
  const fd = openSync(file, 'w+');
  try {
    for (const announced of [String(fd), '987']) {
      process.env[CHANNEL] = announced;
      const thrown = refusal('hunter3-value');
      expect(thrown).toBeInstanceOf(SecretValueRefusedError);
      expect(thrown.message).toContain(`names descriptor ${announced}`);
    }
    expect(readFileSync(file, 'utf8')).toBe('');
  } finally {
    delete process.env[CHANNEL];
    closeSync(fd);
    rmSync(file, { force: true });
  }
});

test('a reference names a variable a shell can set, and a file', () => {
  expect(() => Secret.fromEnv('ACME-TOKEN')).toThrow(FleetformError);
  expect(() => Secret.fromEnv('')).toThrow(/environment variable name/);
  expect(() => Secret.fromFile('')).toThrow(/path/);
  expect(String(Secret.fromEnv('X_TOKEN'))).toBe('<secret from environment variable X_TOKEN>');
});

test("a remote's credentials given by reference are synthesized as references, the rest of the remote in config", () => {
  const { app, stack } = newStack();
  const m = new Machine(stack, 'm');
  new Remote(m, 'arm', {
    address: 'arm.local:8080',
    credentials: { type: 'api-key', payload: Secret.fromEnv('ARM_KEY') },
    entity: 'key-id-1',
  });
  new Remote(m, 'cell', { address: 'cell.local:8080', secret: Secret.fromFile('/run/secrets/cell') });
  expect(errorsOf(app)).toEqual([]);
  const doc = synth(stack);
  expect(resourceOf(doc, 'fleetform_machine', 'm').secrets).toEqual({
    'remotes.arm.auth.credentials.payload': { from: 'env', name: 'ARM_KEY' },
    'remotes.cell.secret': { from: 'file', path: '/run/secrets/cell' },
  });
  const remotes = (machineConfig(doc, 'm') as { remotes?: unknown }).remotes;
  expect(remotes).toEqual([
    { name: 'arm', address: 'arm.local:8080', auth: { credentials: { type: 'api-key' }, entity: 'key-id-1' } },
    { name: 'cell', address: 'cell.local:8080' },
  ]);
});
