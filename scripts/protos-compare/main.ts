/**
 * `npm run protos:compare -- DIR`: the project's protos (proto/) against a checkout of
 * viamrobotics/api in DIR. Prints each difference and exits 1 when there is one; reads files
 * only (no network).
 */
import * as path from 'node:path';
import { protosReport } from './report';

const ROOT = path.resolve(__dirname, '..', '..');

function main(argv: readonly string[]): number {
  const [upstreamDir] = argv;
  if (!upstreamDir) {
    process.stderr.write(
      'usage: npm run protos:compare -- DIR\n  DIR: a checkout of viamrobotics/api (git clone https://github.com/viamrobotics/api)\n',
    );
    return 2;
  }
  const report = protosReport(path.join(ROOT, 'proto'), path.resolve(upstreamDir));
  process.stdout.write(report.text);
  return report.ok ? 0 : 1;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 2;
}
