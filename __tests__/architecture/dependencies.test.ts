import { execFile } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const CLI = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Violation {
  readonly from: string;
  readonly to: string;
  readonly rule: { readonly name: string };
  readonly cycle?: ReadonlyArray<{ readonly name: string }>;
}

/** Runs dependency-cruiser with the project's rules (.dependency-cruiser.cjs) over src/. */
function cruise(): Promise<{ violations: Violation[]; modules: number }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [CLI, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
      { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        // The command exits non-zero when it finds violations; its JSON report says which.
        let report: { summary?: { violations: Violation[]; totalCruised: number } };
        try {
          report = JSON.parse(stdout) as typeof report;
        } catch {
          reject(new Error(`dependency-cruiser gave no report: ${err?.message ?? ''}\n${stderr}`));
          return;
        }
        if (!report.summary) reject(new Error(`dependency-cruiser report without summary\n${stderr}`));
        else resolve({ violations: report.summary.violations, modules: report.summary.totalCruised });
      },
    );
  });
}

jest.setTimeout(60_000);

test('src has no import cycle and no layer imports a layer above it', async () => {
  const { violations, modules } = await cruise();
  expect(modules).toBeGreaterThan(100);
  const lines = violations.map(
    (v) => `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle ? ` (cycle ${v.cycle.map((c) => c.name).join(' -> ')})` : ''}`,
  );
  expect(lines).toEqual([]);
});
