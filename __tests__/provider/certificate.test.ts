/**
 * The plugin's TLS identity, encoded through the ASN.1 structures of X.509: read back by two independent parsers
 * (Node's and @peculiar/x509), it is the self-signed P-256 CA for localhost, server and client
 * authentication, that a plugin host trusts; and it serves mutual TLS with Node's own TLS.
 */
import { createPrivateKey, X509Certificate as NodeX509 } from 'node:crypto';
import * as tls from 'node:tls';
import * as x509 from '@peculiar/x509';
import { newPluginIdentity } from '../../src/provider/plugin/certificate';

describe('newPluginIdentity', () => {
  test('Node reads it: self-signed by its own key, localhost, a CA, server and client authentication, valid now for a day', async () => {
    const identity = await newPluginIdentity();
    const cert = new NodeX509(identity.certificatePem);
    expect(cert.subject).toBe('CN=localhost\nO=fleetform');
    expect(cert.issuer).toBe(cert.subject);
    expect(cert.ca).toBe(true);
    expect(cert.subjectAltName).toBe('DNS:localhost');
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.checkIssued(cert)).toBe(true);
    expect(cert.checkPrivateKey(createPrivateKey(identity.privateKeyPem))).toBe(true);
    expect(cert.publicKey.asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });
    const from = Date.parse(cert.validFrom);
    const to = Date.parse(cert.validTo);
    expect(from).toBeLessThanOrEqual(Date.now());
    expect(to - from).toBe(24 * 3600_000 + 60_000);
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.checkHost('example.com')).toBeUndefined();
  });

  test('@peculiar/x509 reads the same: version 3, ECDSA with SHA-256, critical CA and key usage', async () => {
    const identity = await newPluginIdentity();
    const cert = new x509.X509Certificate(identity.certificatePem);
    expect(cert.signatureAlgorithm).toMatchObject({ name: 'ECDSA', hash: { name: 'SHA-256' } });
    expect(cert.serialNumber).toMatch(/^[0-7][0-9a-f]{31}$/);
    expect(cert.serialNumber).not.toMatch(/^00/);
    const basic = cert.getExtension(x509.BasicConstraintsExtension);
    expect(basic).toMatchObject({ ca: true, critical: true });
    const usage = cert.getExtension(x509.KeyUsagesExtension);
    expect(usage?.critical).toBe(true);
    expect(usage?.usages).toBe(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.keyCertSign);
    expect(cert.getExtension(x509.ExtendedKeyUsageExtension)?.usages).toEqual([
      x509.ExtendedKeyUsage.serverAuth,
      x509.ExtendedKeyUsage.clientAuth,
    ]);
    expect(cert.getExtension(x509.SubjectAlternativeNameExtension)?.names.toJSON()).toEqual([{ type: 'dns', value: 'localhost' }]);
    expect(Buffer.from(cert.rawData).toString('base64').replace(/=+$/, '')).toBe(identity.handshakeCertificate);
  });

  test('each run has its own key and serial number', async () => {
    const [a, b] = await Promise.all([newPluginIdentity(), newPluginIdentity()]);
    expect(a.privateKeyPem).not.toBe(b.privateKeyPem);
    expect(new NodeX509(a.certificatePem).serialNumber).not.toBe(new NodeX509(b.certificatePem).serialNumber);
  });

  test('serves mutual TLS: a client trusting only it connects to localhost with its own identity', async () => {
    const [server, client] = await Promise.all([newPluginIdentity(), newPluginIdentity()]);
    const listener = tls.createServer(
      { key: server.privateKeyPem, cert: server.certificatePem, ca: client.certificatePem, requestCert: true, rejectUnauthorized: true },
      (socket) => socket.end('hello'),
    );
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    try {
      const port = (listener.address() as { port: number }).port;
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = tls.connect({
          host: '127.0.0.1',
          port,
          servername: 'localhost',
          ca: server.certificatePem,
          key: client.privateKeyPem,
          cert: client.certificatePem,
        });
        let text = '';
        socket.on('data', (d: Buffer) => (text += d.toString()));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      expect(answer).toBe('hello');
    } finally {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
  });
});
