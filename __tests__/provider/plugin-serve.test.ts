/**
 * The provider executable as Terraform runs it: started with the host's environment and a
 * client certificate, it prints only the handshake line on stdout, serves gRPC over a unix
 * socket with mutual TLS (a client without the host's certificate is refused), answers
 * GetProviderSchema, and exits 0 on the controller's Shutdown.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { webcrypto } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Message, MessageType } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import * as x509 from '@peculiar/x509';
import { Empty } from '../../src/provider/protocol/generated/plugin/grpc_controller_pb';
import * as tf from '../../src/provider/protocol/generated/tfplugin6/tfplugin6_pb';

jest.setTimeout(60_000);

const BIN = path.resolve(__dirname, '../../bin/terraform-provider-fleetform.js');
const COMPILED = path.resolve(__dirname, '../../dist/cli/provider-main.js');
const MAGIC_COOKIE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2';

interface ClientIdentity {
  readonly certPem: string;
  readonly keyPem: string;
}

function pem(label: string, der: ArrayBuffer): string {
  return `-----BEGIN ${label}-----\n${Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '')}\n-----END ${label}-----\n`;
}

/** A client certificate like the one go-plugin's host makes: self-signed ECDSA P-521 CA for localhost, client and server auth. */
async function hostCertificate(): Promise<ClientIdentity> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const algorithm = { name: 'ECDSA', namedCurve: 'P-521', hash: 'SHA-512' };
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=localhost, O=HashiCorp',
    notBefore: new Date(Date.now() - 30_000),
    notAfter: new Date(Date.now() + 3600_000),
    keys,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.keyCertSign,
        true,
      ),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth, x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'localhost' }]),
    ],
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)) };
}

interface RunningProvider {
  readonly child: ChildProcessWithoutNullStreams;
  readonly handshake: string;
  stdout(): string;
  stderr(): string;
  readonly exited: Promise<number | null>;
}

/** Starts the executable as Terraform does and waits for its first stdout line. */
async function startProvider(client: ClientIdentity, cwd: string): Promise<RunningProvider> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TF_PLUGIN_MAGIC_COOKIE: MAGIC_COOKIE,
    PLUGIN_PROTOCOL_VERSIONS: '5,6',
    PLUGIN_CLIENT_CERT: client.certPem,
    PLUGIN_UNIX_SOCKET_DIR: cwd,
  };
  for (const k of Object.keys(env)) if (k.startsWith('FLEETFORM_')) delete env[k];
  const child = spawn(process.execPath, [BIN], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const handshake = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const end = out.indexOf('\n');
      if (end >= 0) resolve(out.slice(0, end));
    });
    void exited.then((code) => reject(new Error(`the provider exited (${code}) before its handshake; stderr: ${err}`)));
  });
  return { child, handshake, stdout: () => out, stderr: () => err, exited };
}

/** A gRPC client to the socket the handshake names, trusting only the certificate it carries. */
function clientFor(handshake: string, identity: ClientIdentity | undefined): grpc.Client {
  const [, , , address, , certificate] = handshake.split('|');
  const der = Buffer.from(certificate as string, 'base64');
  const serverPem = pem('CERTIFICATE', der.buffer.slice(der.byteOffset, der.byteOffset + der.byteLength) as ArrayBuffer);
  const credentials = identity
    ? grpc.credentials.createSsl(Buffer.from(serverPem), Buffer.from(identity.keyPem), Buffer.from(identity.certPem))
    : grpc.credentials.createSsl(Buffer.from(serverPem));
  return new grpc.Client(`unix://${address}`, credentials, {
    'grpc.ssl_target_name_override': 'localhost',
    'grpc.default_authority': 'localhost',
  });
}

function call<I extends Message<I>, O extends Message<O>>(
  client: grpc.Client,
  method: string,
  request: I,
  output: MessageType<O>,
): Promise<O> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      method,
      (m: I) => Buffer.from(m.toBinary()),
      (b: Buffer) => output.fromBinary(b),
      request,
      { deadline: Date.now() + 20_000 },
      (err, response) => (err || !response ? reject(err ?? new Error('no response')) : resolve(response)),
    );
  });
}

let dir: string;
let host: ClientIdentity;

beforeAll(async () => {
  if (!fs.existsSync(COMPILED)) throw new Error(`${COMPILED} is missing: run \`npm run build\` first`);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-plugin-'));
  host = await hostCertificate();
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

test('handshake, schema over mutual TLS, Shutdown: exit 0 with nothing but the handshake line on stdout', async () => {
  const provider = await startProvider(host, dir);
  let client: grpc.Client | undefined;
  try {
    expect(provider.handshake).toMatch(/^1\|6\|unix\|[^|]+\|grpc\|[A-Za-z0-9+/]+$/);
    const socket = provider.handshake.split('|')[3] as string;
    expect(socket.startsWith(dir)).toBe(true);
    expect(fs.statSync(socket).isSocket()).toBe(true);

    client = clientFor(provider.handshake, host);
    const schema = await call(
      client,
      '/tfplugin6.Provider/GetProviderSchema',
      new tf.GetProviderSchema_Request(),
      tf.GetProviderSchema_Response,
    );
    expect(schema.diagnostics).toEqual([]);
    expect(Object.keys(schema.resourceSchemas).sort()).toEqual([
      'fleetform_custom_training_job',
      'fleetform_data_pipeline',
      'fleetform_dataset',
      'fleetform_fragment',
      'fleetform_fragment_tag',
      'fleetform_location',
      'fleetform_machine',
      'fleetform_machine_part',
      'fleetform_ml_model',
      'fleetform_organization_defaults',
      'fleetform_training_job',
    ]);
    const machine = new Map(schema.resourceSchemas.fleetform_machine?.block?.attributes.map((a) => [a.name, a]));
    expect([...machine.keys()]).toEqual([
      'name',
      'location_id',
      'config',
      'secret_env',
      'secrets',
      'deploy_models',
      'health_gate',
      'health_analysis',
      'acknowledged',
      'id',
      'part_id',
      'secret_env_digest',
      'secrets_digest',
    ]);
    expect(machine.get('secret_env')).toMatchObject({ sensitive: true, writeOnly: true, computed: false });
    expect(machine.get('secret_env_digest')).toMatchObject({ computed: true, writeOnly: false });
    expect(machine.get('name')).toMatchObject({ required: true, optional: false, computed: false, sensitive: false });
    expect(machine.get('location_id')).toMatchObject({ required: false, optional: true, computed: true });
    expect(machine.get('config')).toMatchObject({ required: true, sensitive: false });
    expect(machine.get('secret_env')).toMatchObject({ optional: true, sensitive: true });
    expect(JSON.parse(Buffer.from(machine.get('secret_env')?.type ?? []).toString())).toEqual(['map', 'string']);
    expect(JSON.parse(Buffer.from(machine.get('health_analysis')?.type ?? []).toString())).toEqual(['map', ['map', 'string']]);
    expect(machine.get('health_analysis')?.description).toContain('`metric` (reading, log_rate, job_failures, module_failures)');
    expect(machine.get('id')).toMatchObject({ computed: true, optional: false, required: false });
    const job = new Map(schema.resourceSchemas.fleetform_training_job?.block?.attributes.map((a) => [a.name, a]));
    expect(job.get('model_version')).toMatchObject({ required: true, computed: false });
    expect(JSON.parse(Buffer.from(job.get('tags')?.type ?? []).toString())).toEqual(['list', 'string']);
    const providerBlock = new Map(schema.provider?.block?.attributes.map((a) => [a.name, a]));
    expect(providerBlock.get('api_key')?.sensitive).toBe(true);
    expect(providerBlock.get('endpoint')).toMatchObject({ optional: true, sensitive: false });
    expect(schema.serverCapabilities?.planDestroy).toBe(true);
    expect(schema.serverCapabilities?.getProviderSchemaOptional).toBe(true);

    await call(client, '/plugin.GRPCController/Shutdown', new Empty(), Empty);
    client.close();
    client = undefined;
    expect(await provider.exited).toBe(0);
    expect(provider.stdout()).toBe(`${provider.handshake}\n`);
    // The socket's folder is removed on the way out.
    expect(fs.existsSync(path.dirname(socket))).toBe(false);
  } finally {
    client?.close();
    if (provider.child.exitCode === null) provider.child.kill();
  }
});

test('a client without the host certificate is refused', async () => {
  const provider = await startProvider(host, dir);
  const clients: grpc.Client[] = [];
  try {
    for (const identity of [undefined, await hostCertificate()]) {
      const client = clientFor(provider.handshake, identity);
      clients.push(client);
      const refused = await call(
        client,
        '/tfplugin6.Provider/GetProviderSchema',
        new tf.GetProviderSchema_Request(),
        tf.GetProviderSchema_Response,
      ).then(
        () => undefined,
        (err: grpc.ServiceError) => err,
      );
      expect(refused?.code).toBe(grpc.status.UNAVAILABLE);
    }
    // The host's own certificate still works on the same server.
    const ok = clientFor(provider.handshake, host);
    clients.push(ok);
    await call(ok, '/plugin.GRPCController/Shutdown', new Empty(), Empty);
    for (const c of clients) c.close();
    expect(await provider.exited).toBe(0);
    expect(provider.stdout()).toBe(`${provider.handshake}\n`);
  } finally {
    for (const c of clients) c.close();
    if (provider.child.exitCode === null) provider.child.kill();
  }
});

test('started without a plugin host it says so on stderr, prints nothing on stdout and exits 1', async () => {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.TF_PLUGIN_MAGIC_COOKIE;
  const child = spawn(process.execPath, [BIN], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code).toBe(1);
  expect(out).toBe('');
  expect(err).toContain('TF_PLUGIN_MAGIC_COOKIE: this is a Terraform provider');
});

/** Whether `pid` is a live process (a zombie waiting for a parent to reap it has exited). */
function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Resolves once `check` holds, polling; rejects with `what` after `ms`. */
async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('a provider whose host is killed exits by itself, though the stdin it shares stays open', async () => {
  // A stand-in host: starts the provider as go-plugin does (the host's own stdin passed on),
  // says the provider's pid, then forwards the handshake line.
  const hostScript = `
    const { spawn } = require('node:child_process');
    const child = spawn(process.execPath, [${JSON.stringify(BIN)}], { stdio: ['inherit', 'pipe', 'inherit'] });
    process.stdout.write('pid ' + child.pid + '\\n');
    child.stdout.pipe(process.stdout);
  `;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TF_PLUGIN_MAGIC_COOKIE: MAGIC_COOKIE,
    PLUGIN_PROTOCOL_VERSIONS: '5,6',
    PLUGIN_CLIENT_CERT: host.certPem,
    PLUGIN_UNIX_SOCKET_DIR: dir,
  };
  for (const k of Object.keys(env)) if (k.startsWith('FLEETFORM_')) delete env[k];
  const hostProcess = spawn(process.execPath, ['-e', hostScript], { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  hostProcess.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const seen = await new Promise<{ pid: number; handshake: string }>((resolve, reject) => {
    hostProcess.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^pid (\d+)\n(1\|6\|[^\n]+)\n/.exec(out);
      if (m) resolve({ pid: Number(m[1]), handshake: m[2] as string });
    });
    hostProcess.on('exit', (code) => reject(new Error(`the host ended (${code}): ${err}`)));
  });
  let client: grpc.Client | undefined;
  try {
    // Serving a host as usual until the host dies.
    client = clientFor(seen.handshake, host);
    await call(client, '/tfplugin6.Provider/GetProviderSchema', new tf.GetProviderSchema_Request(), tf.GetProviderSchema_Response);
    const socket = seen.handshake.split('|')[3] as string;
    hostProcess.kill('SIGKILL');
    await until(() => !isRunning(seen.pid), 15_000, `provider ${seen.pid} did not exit after its host was killed`);
    // It stopped cleanly: the socket's folder is gone.
    expect(fs.existsSync(path.dirname(socket))).toBe(false);
    expect(err).toContain('the host process is gone; stopping');
  } finally {
    client?.close();
    hostProcess.stdin.end();
    if (isRunning(seen.pid)) process.kill(seen.pid, 'SIGKILL');
  }
});
