import { webcrypto, X509Certificate as NodeX509 } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/** The plugin's own TLS identity: a fresh self-signed certificate for one run. */
export interface PluginIdentity {
  readonly certificatePem: string;
  readonly privateKeyPem: string;
  /** DER bytes of the certificate in standard base64 without padding, as the handshake line carries them. */
  readonly handshakeCertificate: string;
}

function pem(label: string, der: ArrayBuffer): string {
  const body = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
}

/**
 * A self-signed ECDSA P-256 certificate for `localhost`, valid for a day: a CA (the host
 * trusts it as its only root) for both server and client authentication, as the plugin
 * host's automatic mutual TLS expects. Keys come from Node's own crypto (fast on every start).
 */
export async function newPluginIdentity(): Promise<PluginIdentity> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const now = Date.now();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
        .toString('hex')
        .replace(/^[89a-f]/, '1'),
      name: 'CN=localhost, O=fleetform',
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + 24 * 3600_000),
      keys,
      signingAlgorithm: algorithm,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.keyCertSign,
          true,
        ),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
        new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'localhost' }]),
      ],
    },
    x509.cryptoProvider.get(),
  );
  const privateKey = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return {
    certificatePem: certificate.toString('pem') + '\n',
    privateKeyPem: pem('PRIVATE KEY', privateKey),
    handshakeCertificate: Buffer.from(certificate.rawData).toString('base64').replace(/=+$/, ''),
  };
}

/** True when `pemText` holds a certificate Node can read (the host's client certificate). */
export function isCertificatePem(pemText: string): boolean {
  try {
    new NodeX509(pemText);
    return true;
  } catch {
    return false;
  }
}
