/**
 * A model file packed as the registry takes packages: a gzipped tar (POSIX ustar) holding
 * the file under its own name, with fixed times and owners so the same file packs to the
 * same bytes.
 */
import { gzipSync } from 'node:zlib';

const BLOCK = 512;

function field(header: Buffer, offset: number, length: number, text: string): void {
  header.write(text, offset, Math.min(length, Buffer.byteLength(text)), 'utf8');
}

function octal(value: number, length: number): string {
  return `${value.toString(8).padStart(length - 1, '0')}\0`;
}

/** The ustar header of one regular file. */
function header(name: string, size: number): Buffer {
  const h = Buffer.alloc(BLOCK);
  field(h, 0, 100, name);
  field(h, 100, 8, octal(0o644, 8));
  field(h, 108, 8, octal(0, 8));
  field(h, 116, 8, octal(0, 8));
  field(h, 124, 12, octal(size, 12));
  field(h, 136, 12, octal(0, 12));
  field(h, 148, 8, '        ');
  field(h, 156, 1, '0');
  field(h, 257, 6, 'ustar\0');
  field(h, 263, 2, '00');
  let sum = 0;
  for (const byte of h) sum += byte;
  field(h, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return h;
}

/** A `.tar.gz` holding one file; its name must fit the 100 bytes of a ustar name. */
export function packFile(name: string, contents: Uint8Array): Uint8Array {
  if (Buffer.byteLength(name) > 100) throw new RangeError(`file name ${JSON.stringify(name)} is longer than 100 bytes`);
  const padding = (BLOCK - (contents.byteLength % BLOCK)) % BLOCK;
  return gzipSync(Buffer.concat([header(name, contents.byteLength), contents, Buffer.alloc(padding), Buffer.alloc(2 * BLOCK)]));
}
