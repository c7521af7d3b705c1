import { generateKeyPairSync, randomBytes, sign, X509Certificate as NodeX509 } from 'node:crypto';
import {
  bitString,
  boolean,
  explicit,
  implicit,
  objectIdentifier,
  octetString,
  sequence,
  set,
  smallInteger,
  time,
  unsignedInteger,
  utf8String,
} from './der';

/** The plugin's own TLS identity: a fresh self-signed certificate for one run. */
export interface PluginIdentity {
  readonly certificatePem: string;
  readonly privateKeyPem: string;
  /** DER bytes of the certificate in standard base64 without padding, as the handshake line carries them. */
  readonly handshakeCertificate: string;
}

/** The object identifiers the certificate names. */
const Oid = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  extendedKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

/**
 * Key usage bits, numbered from the first byte's highest bit: digitalSignature (0),
 * keyEncipherment (2) and keyCertSign (5), that is 1010 0100; the last set bit is bit 5, so
 * the two bits after it are left out of the encoding.
 */
const KEY_USAGE = { bits: 0b1010_0100, unusedBits: 2 } as const;

function pem(label: string, der: Uint8Array): string {
  const body = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
}

function extension(oid: string, critical: boolean, value: Uint8Array): Buffer {
  return sequence(objectIdentifier(oid), ...(critical ? [boolean(true)] : []), octetString(value));
}

/** A positive 128-bit serial number: random, its highest bit clear and its first byte never zero. */
function serialNumber(): Buffer {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f || 1;
  return bytes;
}

/**
 * A self-signed ECDSA P-256 certificate for `localhost`, valid for a day: a CA (the host
 * trusts it as its only root) for both server and client authentication, as the plugin
 * host's automatic mutual TLS expects. Node's own crypto makes the keys and the signature;
 * the certificate's DER is written here, as it is small and fixed but for the key, serial and dates.
 */
export async function newPluginIdentity(): Promise<PluginIdentity> {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const now = Date.now();
  const name = sequence(
    set(sequence(objectIdentifier(Oid.commonName), utf8String('localhost'))),
    set(sequence(objectIdentifier(Oid.organization), utf8String('fleetform'))),
  );
  const signatureAlgorithm = sequence(objectIdentifier(Oid.ecdsaWithSha256));
  const extensions = sequence(
    extension(Oid.basicConstraints, true, sequence(boolean(true))),
    extension(Oid.keyUsage, true, bitString(Buffer.from([KEY_USAGE.bits]), KEY_USAGE.unusedBits)),
    extension(Oid.extendedKeyUsage, false, sequence(objectIdentifier(Oid.serverAuth), objectIdentifier(Oid.clientAuth))),
    // GeneralName dNSName is [2] IMPLICIT IA5String.
    extension(Oid.subjectAltName, false, sequence(implicit(2, Buffer.from('localhost', 'ascii')))),
  );
  const tbsCertificate = sequence(
    explicit(0, smallInteger(2)), // version 3
    unsignedInteger(serialNumber()),
    signatureAlgorithm,
    name,
    sequence(time(new Date(now - 60_000)), time(new Date(now + 24 * 3600_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, extensions),
  );
  // ECDSA signatures from Node's sign are DER (SEQUENCE of r and s), as X.509 carries them.
  const signature = sign('sha256', tbsCertificate, privateKey);
  const certificate = sequence(tbsCertificate, signatureAlgorithm, bitString(signature));
  return {
    certificatePem: pem('CERTIFICATE', certificate),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    handshakeCertificate: certificate.toString('base64').replace(/=+$/, ''),
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
