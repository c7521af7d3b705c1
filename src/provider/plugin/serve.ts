import * as grpc from '@grpc/grpc-js';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { controllerService, providerService, type ProviderHandlers } from '../protocol/services';
import { newPluginIdentity } from './certificate';
import { handshakeLine, readHostRequest } from './handshake';
import { watchParent } from './parent-watch';

/** A running plugin: resolves when the host shut it down (or the process is asked to stop). */
export interface RunningPlugin {
  readonly socketPath: string;
  readonly stopped: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Anything the provider's code writes to stdout would corrupt the host's reading of it:
 * after the handshake line, stdout writes go to stderr (the host logs stderr lines).
 */
function divertStdout(): (line: string) => void {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  return (line) => {
    write(line);
  };
}

/**
 * Serves a provider as a go-plugin: checks the host's environment, listens with mutual TLS
 * on a unix socket, prints the handshake line, and stops on the controller's Shutdown,
 * on SIGTERM, or once the host process is gone.
 */
export async function servePlugin(handlers: ProviderHandlers, env: NodeJS.ProcessEnv = process.env): Promise<RunningPlugin> {
  const printHandshake = divertStdout();
  const host = readHostRequest(env);
  const identity = await newPluginIdentity();
  const dir = fs.mkdtempSync(path.join(host.socketDir ?? os.tmpdir(), 'fleetform-plugin-'));
  const socketPath = path.join(dir, 'provider.sock');
  const server = new grpc.Server({
    'grpc.max_receive_message_length': 256 * 1024 * 1024,
    'grpc.max_send_message_length': 256 * 1024 * 1024,
  });
  let resolveStopped: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= new Promise<void>((resolve) => {
      server.tryShutdown(() => {
        fs.rmSync(dir, { recursive: true, force: true });
        resolve();
      });
      // Calls still running when the host asked to stop are cut after a grace period.
      setTimeout(() => server.forceShutdown(), 2000).unref();
    }).then(resolveStopped);
    return stopping;
  };
  const provider = providerService(handlers);
  server.addService(provider.definition, provider.implementation);
  const controller = controllerService(() => void stop());
  server.addService(controller.definition, controller.implementation);
  const credentials = grpc.ServerCredentials.createSsl(
    Buffer.from(host.clientCertificatePem),
    [{ private_key: Buffer.from(identity.privateKeyPem), cert_chain: Buffer.from(identity.certificatePem) }],
    true,
  );
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socketPath}`, credentials, (err) => (err ? reject(err) : resolve())),
  );
  // The host stops a run through StopProvider and Shutdown; an interrupt sent to the whole process group is its to handle.
  process.on('SIGINT', () => undefined);
  process.once('SIGTERM', () => void stop());
  const unwatch = watchParent(() => {
    // The host's end of stderr may be gone too: a failed log write must not stop the clean-up.
    process.stderr.on('error', () => undefined);
    process.stderr.write('terraform-provider-fleetform: the host process is gone; stopping\n');
    void stop();
  });
  void stopped.then(unwatch);
  printHandshake(handshakeLine(socketPath, identity.handshakeCertificate));
  return { socketPath, stopped, stop };
}
