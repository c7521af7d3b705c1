import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/**
 * The blunt search for secrets: every form a value could be written in (clear, base64 and
 * base64url, hex in both cases, URL-encoded, JSON-escaped), looked for in every file under
 * a folder and in every text captured.
 */

/** The forms of a secret value a writer might use, each at least as long as the value. */
export function secretForms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const forms = [
    value,
    bytes.toString('base64'),
    // Base64 without its padding, as a value inside a longer encoding starts.
    bytes.toString('base64').replace(/=+$/, ''),
    bytes.toString('base64url'),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
    encodeURIComponent(value),
    JSON.stringify(value).slice(1, -1),
  ];
  return [...new Set(forms)];
}

/** Where a form of one of the values was found: `<file or text name>: <form of value>`. */
export type Finding = string;

function findingsIn(name: string, content: Buffer, values: readonly string[]): Finding[] {
  const found: Finding[] = [];
  for (const value of values)
    for (const form of secretForms(value))
      if (content.includes(form)) found.push(`${name}: ${form === value ? 'clear' : `encoded ${form}`} (${value})`);
  return found;
}

/** Every file under `root` (but the folders `skip` names, by path relative to it) holding a form of one of the values. */
export async function searchFiles(
  root: string,
  values: readonly string[],
  skip: readonly string[] = [],
): Promise<{ findings: Finding[]; files: string[] }> {
  const findings: Finding[] = [];
  const files: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const relative = path.relative(root, full);
      if (skip.includes(relative) || entry.name === 'node_modules') continue;
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) {
        files.push(relative);
        findings.push(...findingsIn(relative, await fs.readFile(full), values));
      }
    }
  };
  await walk(root);
  return { findings, files };
}

/** Each captured text (by name) holding a form of one of the values. */
export function searchTexts(texts: Readonly<Record<string, string>>, values: readonly string[]): Finding[] {
  return Object.entries(texts).flatMap(([name, text]) => findingsIn(name, Buffer.from(text, 'utf8'), values));
}
