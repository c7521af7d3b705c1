import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const CLI = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');

interface Violation {
  readonly from: string;
  readonly to: string;
  readonly rule: { readonly name: string };
  readonly cycle?: ReadonlyArray<{ readonly name: string }>;
}

/** Runs dependency-cruiser with the project's rules (.dependency-cruiser.cjs) over `src/` of the tree at `cwd`. */
function cruise(cwd: string): Promise<{ violations: Violation[]; modules: number }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [CLI, 'src', '--config', CONFIG, '--output-type', 'json'],
      { cwd, maxBuffer: 64 * 1024 * 1024 },
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

const lineOf = (v: Violation): string =>
  `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle ? ` (cycle ${v.cycle.map((c) => c.name).join(' -> ')})` : ''}`;

jest.setTimeout(60_000);

test('src has no import cycle, no layer imports a layer above it, no import inside the engine or the emulator runs back up, and other layers reach the engine through its face', async () => {
  const { violations, modules } = await cruise(ROOT);
  expect(modules).toBeGreaterThan(100);
  expect(violations.map(lineOf)).toEqual([]);
});

/** Files of a scratch tree, by path, each importing the paths listed. */
const WRONG_TREE: Record<string, readonly string[]> = {
  'src/engine/kinds/machine.ts': [],
  'src/engine/readings.ts': ['./kinds/machine'],
  'src/engine/diff.ts': ['./kinds/machine'],
  'src/engine/new-room.ts': ['./diff'],
  'src/dashboard/fleet-view.ts': ['../engine/readings', '../engine/kinds/machine'],
  'src/emulator/rpc/app.ts': [],
  'src/emulator/store/machines.ts': ['../rpc/app'],
};

test('the rules refuse an import back up inside the engine or the emulator, a file on no floor, and another layer reaching past the face', async () => {
  const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-deps-'));
  try {
    fs.writeFileSync(path.join(tree, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'commonjs', strict: true } }));
    for (const [file, imports] of Object.entries(WRONG_TREE)) {
      fs.mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
      const body = imports.map((spec, i) => `import * as m${i} from '${spec}';\nexport const u${i} = m${i};\n`).join('');
      fs.writeFileSync(path.join(tree, file), `${body}export const here = 1;\n`);
    }
    const { violations } = await cruise(tree);
    expect(violations.map(lineOf).sort()).toEqual(
      [
        'engine-floors: src/engine/diff.ts -> src/engine/kinds/machine.ts',
        'engine-floors: src/engine/new-room.ts -> src/engine/diff.ts',
        'engine-face: src/dashboard/fleet-view.ts -> src/engine/kinds/machine.ts',
        'emulator-floors: src/emulator/store/machines.ts -> src/emulator/rpc/app.ts',
      ].sort(),
    );
  } finally {
    fs.rmSync(tree, { recursive: true, force: true });
  }
});
