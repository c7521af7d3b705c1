/** The .proto files under a folder, read as text, paths relative to it (node_modules and dot folders left out). */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ProtoSource } from './declarations';

/** A folder that cannot be read as a tree of protos, named with the fix. */
export class ProtoTreeMissingError extends Error {
  constructor(readonly dir: string) {
    super(`${dir} holds no .proto file: give a checkout of viamrobotics/api (git clone https://github.com/viamrobotics/api)`);
    this.name = 'ProtoTreeMissingError';
  }
}

function walk(dir: string, root: string, out: ProtoSource[]): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, root, out);
    else if (entry.isFile() && entry.name.endsWith('.proto'))
      out.push({ path: path.relative(root, full).split(path.sep).join('/'), text: fs.readFileSync(full, 'utf8') });
  }
}

export function protoSourcesUnder(dir: string): ProtoSource[] {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new ProtoTreeMissingError(dir);
  const out: ProtoSource[] = [];
  walk(dir, dir, out);
  if (out.length === 0) throw new ProtoTreeMissingError(dir);
  return out;
}
