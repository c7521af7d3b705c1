/**
 * Terraform does not tell a provider the address of the resource it plans. For advice that
 * names it (`terraform import ADDRESS ID`), the address is looked up in the JSON
 * configuration of the working directory (what cdktf synthesizes): the one resource of the
 * type whose naming attributes hold the planned values. HCL files are not read: their
 * advice keeps `<this address>`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isObject as isRecord } from '../domain/json-value';

/** Attributes that name an object on the service, compared when they are plain strings in both. */
const NAMING = ['name', 'model_name', 'model_version'] as const;

/** `TYPE.NAME` of the one JSON-configured resource of `type` matching `config`, else undefined. */
export function configAddress(type: string, config: Readonly<Record<string, unknown>>, dir = process.cwd()): string | undefined {
  let files: string[];
  try {
    files = fs.readdirSync(dir).filter((f) => f.endsWith('.tf.json'));
  } catch {
    return undefined;
  }
  const matches: string[] = [];
  for (const file of files) {
    let doc: unknown;
    try {
      doc = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    } catch {
      continue;
    }
    const blocks = isRecord(doc) && isRecord(doc.resource) ? doc.resource[type] : undefined;
    if (!isRecord(blocks)) continue;
    for (const [name, block] of Object.entries(blocks)) {
      if (!isRecord(block)) continue;
      const compared = NAMING.filter((a) => typeof config[a] === 'string' && typeof block[a] === 'string');
      if (compared.length > 0 && compared.every((a) => block[a] === config[a])) matches.push(`${type}.${name}`);
    }
  }
  return matches.length === 1 ? matches[0] : undefined;
}
