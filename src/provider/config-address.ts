/**
 * Terraform does not tell a provider the address of the resource it plans. For advice that
 * names it (`terraform import ADDRESS ID`), the address is looked up in the JSON
 * configuration of the working directory (what cdktf synthesizes): the one resource of the
 * type whose naming attributes hold the planned values. In HCL files (`*.tf`) a block's
 * naming attributes are read where it writes them as literal strings (`name = "picker-1"`);
 * a resource found nowhere keeps `<this address>` in its advice.
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
    files = fs.readdirSync(dir);
  } catch {
    return undefined;
  }
  const matches: string[] = hclMatches(
    type,
    config,
    files.filter((f) => f.endsWith('.tf')).map((f) => readText(path.join(dir, f))),
  );
  files = files.filter((f) => f.endsWith('.tf.json'));
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

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

const HCL_BLOCK = /^resource\s+"([^"]+)"\s+"([^"]+)"\s*\{/gm;

/** The HCL resource blocks of `type` whose literal naming attributes hold the planned values, as addresses. */
export function hclMatches(type: string, config: Readonly<Record<string, unknown>>, texts: readonly string[]): string[] {
  const out: string[] = [];
  for (const text of texts) {
    const starts = [...text.matchAll(HCL_BLOCK)];
    starts.forEach((m, i) => {
      if (m[1] !== type) return;
      const body = text.slice((m.index ?? 0) + m[0].length, starts[i + 1]?.index ?? text.length);
      const literal = (a: string): string | undefined => new RegExp(`^\\s*${a}\\s*=\\s*"([^"$%\\\\]*)"\\s*$`, 'm').exec(body)?.[1];
      const compared = NAMING.filter((a) => typeof config[a] === 'string' && literal(a) !== undefined);
      if (compared.length > 0 && compared.every((a) => literal(a) === config[a])) out.push(`${type}.${m[2]}`);
    });
  }
  return out;
}
