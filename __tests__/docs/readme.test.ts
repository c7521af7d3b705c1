/**
 * The README says only what the tool does: the two set-up commands near the top, every
 * `fleetform` command and flag it shows exists in the command line, every relative link of
 * the README and docs/ reaches a file (and a heading, when it names one), and its TypeScript
 * blocks, read in order as one app (synthesized at its end), type-check against the built `fleetform/cdktn` entry and
 * synthesize without an error.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Command } from 'commander';
import * as ts from 'typescript';
import { buildProgram } from '../../src/cli/main';

const ROOT = path.resolve(__dirname, '../..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const DOCS = readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));

/** The code blocks of a markdown text in `lang`, in order. */
function blocks(text: string, lang: string): string[] {
  return [...text.matchAll(new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```', 'gm'))].map((m) => m[1] as string);
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1] as string)));
}

describe('the README', () => {
  test('gives the two set-up commands near the top, and the sections others fill in', () => {
    const top = README.split('\n').slice(0, 30).join('\n');
    expect(top).toContain('```sh\nnpm install && npm start\n```');
    expect(top).toContain('```sh\nnpm install && npm test\n```');
    const lines = README.split('\n');
    const start = lines.indexOf('<!-- bench:summary:start -->');
    const end = lines.indexOf('<!-- bench:summary:end -->');
    expect(start).toBeGreaterThan(lines.indexOf('## Performance'));
    expect(end).toBeGreaterThan(start);
    expect(lines.slice(start, end).join('\n')).toContain('(docs/performance.md)');
    const dashboard = README.split('\n## See the fleet: the dashboard\n')[1]?.split('\n## ')[0] ?? '';
    expect(dashboard).toContain('(docs/dashboard.md)');
  });

  test('every fleetform command and flag it shows exists in the command line', () => {
    const program = buildProgram();
    const shown = [
      ...blocks(README, 'sh').flatMap((b) => b.split('\n')),
      ...[...README.matchAll(/`([^`\n]*fleetform [^`\n]*)`/g)].map((m) => m[1] as string),
    ];
    const problems: string[] = [];
    let checked = 0;
    for (const line of shown) {
      const at = line.search(/(^|\s)fleetform\s/);
      if (at < 0) continue;
      const words = line
        .slice(at)
        .replace(/\s#.*$/, '')
        .split(/&&|;/)[0]!
        .trim()
        .split(/\s+/)
        .slice(1);
      let command: Command = program;
      const names = ['fleetform'];
      for (const word of words) {
        const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
        if (!sub) break;
        command = sub;
        names.push(word);
      }
      if (command === program) {
        problems.push(`no command in: ${line.trim()}`);
        continue;
      }
      checked += 1;
      const longs = new Set(command.options.map((o) => o.long));
      for (const flag of words.flatMap((w) => [...w.matchAll(/(?:^|\[)(--[a-z][a-z-]*)/g)].map((m) => m[1] as string)))
        if (!longs.has(flag) && flag !== '--help') problems.push(`${names.join(' ')} has no ${flag} (in: ${line.trim()})`);
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(20);
  });

  test('every relative link of the README and docs/ reaches its file and heading', () => {
    const problems: string[] = [];
    for (const file of ['README.md', ...DOCS.map((d) => path.join('docs', d))]) {
      const text = readFileSync(path.join(ROOT, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target as string)) continue;
        const [where, anchor] = (target as string).split('#');
        const to = where ? path.resolve(path.dirname(path.join(ROOT, file)), where) : path.join(ROOT, file);
        if (!existsSync(to)) problems.push(`${file}: ${target} reaches no file`);
        else if (anchor && to.endsWith('.md') && !anchorsOf(to).has(anchor)) problems.push(`${file}: ${target} reaches no heading`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("the README's TypeScript, read in order as one app", () => {
  const tsBlocks = blocks(README, 'ts');
  // Synthesis ends the app: the later blocks add to the stacks of the first.
  const source = `${tsBlocks
    .join('\n')
    .split('\n')
    .filter((line) => line.trim() !== 'app.synth();')
    .join('\n')}\napp.synth();\n`;

  test('type-checks under strict settings against the built fleetform/cdktn', () => {
    if (!existsSync(path.join(ROOT, 'dist', 'cdktn.d.ts')))
      throw new Error('dist/cdktn.d.ts is missing: run `npm run build` (jest builds dist/ first when src/ is newer)');
    expect(tsBlocks.length).toBeGreaterThan(3);
    const file = path.join(ROOT, '__readme__.ts');
    const options: ts.CompilerOptions = {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      moduleResolution: ts.ModuleResolutionKind.Node10,
      skipLibCheck: true,
      types: [],
      baseUrl: ROOT,
      paths: { 'fleetform/cdktn': ['dist/cdktn.d.ts'] },
    };
    const host = ts.createCompilerHost(options);
    const readFile = host.readFile.bind(host);
    const getSourceFile = host.getSourceFile.bind(host);
    host.readFile = (name) => (name === file ? source : readFile(name));
    host.fileExists = (name) => name === file || ts.sys.fileExists(name);
    host.getSourceFile = (name, language) =>
      name === file ? ts.createSourceFile(name, source, language, true) : getSourceFile(name, language);
    const program = ts.createProgram([file], options, host);
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).toEqual([]);
  }, 60_000);

  test('synthesizes without an error, one machine resource per machine', () => {
    const js = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    const outdir = mkdtempSync(path.join(tmpdir(), 'fleetform-readme-'));
    const saved = process.env.CDKTF_OUTDIR;
    process.env.CDKTF_OUTDIR = outdir;
    try {
      const load = (name: string): unknown =>
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- the README's imports, resolved to the built entry
        require(name === 'fleetform/cdktn' ? path.join(ROOT, 'dist', 'cdktn.js') : name);
      new Function('require', 'exports', js)(load, {});
      const stack = JSON.parse(readFileSync(path.join(outdir, 'stacks', 'warehouse', 'cdk.tf.json'), 'utf8')) as {
        resource: Record<string, Record<string, unknown>>;
      };
      expect(Object.keys(stack.resource.fleetform_machine ?? {}).sort()).toEqual(['picker-1', 'picker-2', 'picker-3']);
    } finally {
      if (saved === undefined) delete process.env.CDKTF_OUTDIR;
      else process.env.CDKTF_OUTDIR = saved;
      rmSync(outdir, { recursive: true, force: true });
    }
  }, 60_000);
});
