import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { kindDeclarations } from '../src/engine/kinds';
import { resourcesMarkdown } from '../src/engine/reference-docs';

/** Writes docs/resources.md from the kinds' declarations. */
async function main(): Promise<void> {
  const file = path.resolve(__dirname, '..', 'docs', 'resources.md');
  await fs.writeFile(file, resourcesMarkdown(kindDeclarations));
  process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
