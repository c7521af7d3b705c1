import { generateKeyPairSync, randomBytes, sign, X509Certificate as NodeX509 } from 'node:crypto';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier,
  AttributeTypeAndValue,
  AttributeValue,
  BasicConstraints,
  Certificate,
  ExtendedKeyUsage,
  Extension,
  Extensions,
  GeneralName,
  KeyUsage,
  KeyUsageFlags,
  Name,
  RelativeDistinguishedName,
  SubjectAlternativeName,
  SubjectPublicKeyInfo,
  TBSCertificate,
  Validity,
  Version,
} from '@peculiar/asn1-x509';

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

function pem(label: string, der: Uint8Array): string {
  const body = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
}

function extension(oid: string, critical: boolean, value: object): Extension {
  return new Extension({ extnID: oid, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });
}

function attribute(oid: string, text: string): RelativeDistinguishedName {
  return new RelativeDistinguishedName([new AttributeTypeAndValue({ type: oid, value: new AttributeValue({ utf8String: text }) })]);
}

/** A positive 128-bit serial number: random, its highest bit clear and its first byte never zero. */
function serialNumber(): ArrayBuffer {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f || 1;
  return new Uint8Array(bytes).buffer;
}

/**
 * A self-signed ECDSA P-256 certificate for `localhost`, valid for a day: a CA (the host
 * trusts it as its only root) for both server and client authentication, as the plugin
 * host's automatic mutual TLS expects. Node's own crypto makes the keys and the signature;
 * the ASN.1 structures of X.509 encode it (the whole X.509 toolkit is not loaded at every start).
 */
export async function newPluginIdentity(): Promise<PluginIdentity> {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const now = Date.now();
  const name = new Name([attribute(Oid.commonName, 'localhost'), attribute(Oid.organization, 'fleetform')]);
  const signatureAlgorithm = new AlgorithmIdentifier({ algorithm: Oid.ecdsaWithSha256 });
  const tbsCertificate = new TBSCertificate({
    version: Version.v3,
    serialNumber: serialNumber(),
    signature: signatureAlgorithm,
    issuer: name,
    validity: new Validity({ notBefore: new Date(now - 60_000), notAfter: new Date(now + 24 * 3600_000) }),
    subject: name,
    subjectPublicKeyInfo: AsnConvert.parse(publicKey.export({ type: 'spki', format: 'der' }), SubjectPublicKeyInfo),
    extensions: new Extensions([
      extension(Oid.basicConstraints, true, new BasicConstraints({ cA: true })),
      extension(
        Oid.keyUsage,
        true,
        new KeyUsage(KeyUsageFlags.digitalSignature | KeyUsageFlags.keyEncipherment | KeyUsageFlags.keyCertSign),
      ),
      extension(Oid.extendedKeyUsage, false, new ExtendedKeyUsage([Oid.serverAuth, Oid.clientAuth])),
      extension(Oid.subjectAltName, false, new SubjectAlternativeName([new GeneralName({ dNSName: 'localhost' })])),
    ]),
  });
  // ECDSA signatures from Node's sign are DER (SEQUENCE of r and s), as X.509 carries them.
  const signature = sign('sha256', Buffer.from(AsnConvert.serialize(tbsCertificate)), privateKey);
  const certificate = Buffer.from(
    AsnConvert.serialize(new Certificate({ tbsCertificate, signatureAlgorithm, signatureValue: new Uint8Array(signature).buffer })),
  );
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
