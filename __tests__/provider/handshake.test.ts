/**
 * The go-plugin handshake: what the host's environment must hold (magic cookie, protocol
 * 6 among the offered versions, a client certificate) and the line printed on stdout.
 */
import { handshakeLine, HandshakeError, MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE, readHostRequest } from '../../src/provider/plugin/handshake';
import { newPluginIdentity } from '../../src/provider/plugin/certificate';

const CLIENT_PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

function hostEnv(overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return { [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE, PLUGIN_PROTOCOL_VERSIONS: '5,6', PLUGIN_CLIENT_CERT: CLIENT_PEM, ...overrides };
}

/** The HandshakeError readHostRequest throws for `env`. */
function refusal(env: NodeJS.ProcessEnv): HandshakeError {
  try {
    readHostRequest(env);
  } catch (err) {
    if (err instanceof HandshakeError) return err;
    throw err;
  }
  throw new Error('readHostRequest accepted the environment');
}

describe('readHostRequest', () => {
  test('accepts the host Terraform sets up: the client certificate and socket dir are passed on', () => {
    expect(readHostRequest(hostEnv({ PLUGIN_UNIX_SOCKET_DIR: '/tmp/tf-sockets' }))).toEqual({
      clientCertificatePem: CLIENT_PEM,
      socketDir: '/tmp/tf-sockets',
    });
    expect(readHostRequest(hostEnv({ PLUGIN_PROTOCOL_VERSIONS: ' 6 ' })).socketDir).toBeUndefined();
    expect(readHostRequest(hostEnv({ PLUGIN_UNIX_SOCKET_DIR: '' })).socketDir).toBeUndefined();
  });

  test.each([
    ['missing', undefined],
    ['wrong', 'not-the-cookie'],
    ['empty', ''],
  ])('refuses a %s magic cookie, naming the variable', (_what, cookie) => {
    const err = refusal(hostEnv({ [MAGIC_COOKIE_KEY]: cookie }));
    expect(err.path).toBe('TF_PLUGIN_MAGIC_COOKIE');
    expect(err.message).toContain('Terraform');
    expect(err.hint).toContain('terraform init');
  });

  test.each([
    ['4,5', '4, 5'],
    ['5', '5'],
    ['16', '16'],
    [undefined, 'none'],
  ])('refuses protocol versions %s: 6 is not among them', (offered, shown) => {
    const err = refusal(hostEnv({ PLUGIN_PROTOCOL_VERSIONS: offered }));
    expect(err.path).toBe('PLUGIN_PROTOCOL_VERSIONS');
    expect(err.message).toContain(`versions ${shown}`);
    expect(err.message).toContain('speaks 6');
  });

  test.each([
    ['missing', undefined],
    ['empty', ''],
  ])('refuses a %s client certificate, naming the variable', (_what, cert) => {
    const err = refusal(hostEnv({ PLUGIN_CLIENT_CERT: cert }));
    expect(err.path).toBe('PLUGIN_CLIENT_CERT');
    expect(err.message).toContain('client certificate');
  });

  test('checks the cookie before anything else', () => {
    expect(refusal({ PLUGIN_PROTOCOL_VERSIONS: '5' }).path).toBe('TF_PLUGIN_MAGIC_COOKIE');
  });
});

describe('handshakeLine', () => {
  test('is CORE|APP|NETWORK|ADDRESS|PROTOCOL|CERT, one line', () => {
    expect(handshakeLine('/tmp/x/provider.sock', 'QUJD')).toBe('1|6|unix|/tmp/x/provider.sock|grpc|QUJD\n');
  });

  test("carries the plugin's certificate as DER in standard base64 without padding", async () => {
    const identity = await newPluginIdentity();
    const line = handshakeLine('/tmp/p.sock', identity.handshakeCertificate);
    const fields = line.trimEnd().split('|');
    expect(fields).toHaveLength(6);
    const cert = fields[5] as string;
    expect(cert).toMatch(/^[A-Za-z0-9+/]+$/);
    const der = Buffer.from(cert, 'base64');
    // The same certificate as the PEM the server presents.
    const pemBody = identity.certificatePem.replace(/-----[A-Z ]+-----|\s/g, '');
    expect(der.toString('base64')).toBe(pemBody);
    expect(der.toString('base64').replace(/=+$/, '')).toBe(cert);
  });
});
