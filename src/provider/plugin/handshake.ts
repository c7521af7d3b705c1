import { FleetformError } from '../../domain/errors';

/** The cookie a plugin host sets; without it the executable was not started by Terraform. */
export const MAGIC_COOKIE_KEY = 'TF_PLUGIN_MAGIC_COOKIE';
export const MAGIC_COOKIE_VALUE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2';

/** go-plugin's own protocol version, first on the handshake line. */
const CORE_PROTOCOL_VERSION = 1;
/** The Terraform plugin protocol this provider speaks. */
export const PLUGIN_PROTOCOL_VERSION = 6;

/** Thrown when the executable is started without a plugin host, or by one it cannot serve. */
export class HandshakeError extends FleetformError {}

/** What the host tells the plugin through its environment. */
export interface HostRequest {
  /** PEM of the host's client certificate: mutual TLS with it as the only trusted client. */
  readonly clientCertificatePem: string;
  /** Where to create the socket (PLUGIN_UNIX_SOCKET_DIR), if the host chose. */
  readonly socketDir: string | undefined;
}

/** Checks the host's environment: the magic cookie, protocol 6 among those offered, a client certificate. */
export function readHostRequest(env: NodeJS.ProcessEnv): HostRequest {
  if (env[MAGIC_COOKIE_KEY] !== MAGIC_COOKIE_VALUE) {
    throw new HandshakeError('this is a Terraform provider: Terraform or OpenTofu starts it, not a person', {
      path: MAGIC_COOKIE_KEY,
      hint: 'run `terraform init` in a configuration that uses fleetform/fleetform; for fleetform itself run `fleetform --help`',
    });
  }
  const offered = (env.PLUGIN_PROTOCOL_VERSIONS ?? '').split(',').map((v) => v.trim());
  if (!offered.includes(String(PLUGIN_PROTOCOL_VERSION))) {
    throw new HandshakeError(
      `the host offers plugin protocol versions ${offered.join(', ') || 'none'}; this provider speaks ${PLUGIN_PROTOCOL_VERSION}`,
      {
        path: 'PLUGIN_PROTOCOL_VERSIONS',
        hint: 'use Terraform 1.0 or newer, or OpenTofu',
      },
    );
  }
  const clientCertificatePem = env.PLUGIN_CLIENT_CERT;
  if (!clientCertificatePem) {
    throw new HandshakeError('the host sent no client certificate', {
      path: 'PLUGIN_CLIENT_CERT',
      hint: 'use Terraform 0.15 or newer (automatic mutual TLS)',
    });
  }
  return { clientCertificatePem, socketDir: env.PLUGIN_UNIX_SOCKET_DIR || undefined };
}

/** The one line the host reads on stdout: `CORE|APP|NETWORK|ADDRESS|PROTOCOL|CERT`. */
export function handshakeLine(socketPath: string, certificateBase64: string): string {
  return `${CORE_PROTOCOL_VERSION}|${PLUGIN_PROTOCOL_VERSION}|unix|${socketPath}|grpc|${certificateBase64}\n`;
}
