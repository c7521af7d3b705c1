/**
 * The few DER (ASN.1 distinguished encoding) values an X.509 certificate is made of: each is
 * a tag, its content's length (short form below 128 bytes, else long form) and the content.
 */

/** Universal and context-specific tags used by a certificate. */
export const Tag = {
  boolean: 0x01,
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  objectIdentifier: 0x06,
  utf8String: 0x0c,
  utcTime: 0x17,
  generalizedTime: 0x18,
  sequence: 0x30,
  set: 0x31,
} as const;

function lengthBytes(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One value: `tag`, the length of `content`, `content`. */
export function tlv(tag: number, content: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([tag]), lengthBytes(content.length), content]);
}

export const sequence = (...items: Uint8Array[]): Buffer => tlv(Tag.sequence, Buffer.concat(items));
export const set = (...items: Uint8Array[]): Buffer => tlv(Tag.set, Buffer.concat(items));
export const octetString = (content: Uint8Array): Buffer => tlv(Tag.octetString, content);
export const utf8String = (text: string): Buffer => tlv(Tag.utf8String, Buffer.from(text, 'utf8'));
export const boolean = (value: boolean): Buffer => tlv(Tag.boolean, Buffer.from([value ? 0xff : 0x00]));

/** A context-specific constructed value `[n]` wrapping `content` (EXPLICIT tagging). */
export const explicit = (n: number, content: Uint8Array): Buffer => tlv(0xa0 | n, content);

/** A context-specific primitive value `[n]` of `content` (IMPLICIT tagging of a string). */
export const implicit = (n: number, content: Uint8Array): Buffer => tlv(0x80 | n, content);

/** A non-negative INTEGER from its big-endian bytes: no redundant leading zeros, a zero before a high bit. */
export function unsignedInteger(bytes: Uint8Array): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = Buffer.from(bytes.subarray(start));
  const first = trimmed[0] ?? 0;
  return tlv(Tag.integer, first & 0x80 || trimmed.length === 0 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

/** A small non-negative INTEGER. */
export function smallInteger(value: number): Buffer {
  return unsignedInteger(Buffer.from([value]));
}

/** A BIT STRING of whole bytes plus `unusedBits` trailing bits of the last byte left out. */
export function bitString(bytes: Uint8Array, unusedBits = 0): Buffer {
  return tlv(Tag.bitString, Buffer.concat([Buffer.from([unusedBits]), bytes]));
}

/** An OBJECT IDENTIFIER from its dotted form: the first two arcs in one byte, each further arc in base 128. */
export function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const [first = 0, second = 0, ...rest] = arcs;
  const bytes = [40 * first + second];
  for (const arc of rest) {
    const digits = [arc % 128];
    for (let n = Math.floor(arc / 128); n > 0; n = Math.floor(n / 128)) digits.unshift(0x80 | (n % 128));
    bytes.push(...digits);
  }
  return tlv(Tag.objectIdentifier, Buffer.from(bytes));
}

/** A certificate's time: UTCTime (YYMMDDHHMMSSZ) up to 2049, GeneralizedTime (YYYYMMDDHHMMSSZ) after. */
export function time(at: Date): Buffer {
  const full = at
    .toISOString()
    .replace(/\.\d{3}/, '')
    .replace(/[-:T]/g, '');
  return at.getUTCFullYear() < 2050
    ? tlv(Tag.utcTime, Buffer.from(full.slice(2), 'ascii'))
    : tlv(Tag.generalizedTime, Buffer.from(full, 'ascii'));
}
