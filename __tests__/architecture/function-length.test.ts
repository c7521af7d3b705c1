import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');
const SRC = path.join(ROOT, 'src');

/** A function may hold at most this many lines of its own (its nested functions' bodies count out). */
const MAX_OWN_LINES = 80;

/**
 * Functions still over the limit, not yet split: they must go, and the list only shrinks (an
 * entry under the limit fails the suite until it is removed). Each entry is `path relative to src/#function name`.
 */
const EXCEPTIONS: ReadonlySet<string> = new Set([
  'cli/commands/adopt-run.ts#runAdopt',
  'cli/commands/emulator-controls.ts#register',
  'cli/commands/reconcile.ts#register',
  'emulator/sim/machine-faults.ts#parseMachineFault',
  'emulator/sim/machine-state.ts#checkIn',
  'emulator/sim/machine-state.ts#stepResource',
  'engine/desired/read-stacks.ts#parseStackDocument',
  'provider/resource-lifecycle.ts#planTerraformResource',
  'provider/resource-lifecycle.ts#applyResource',
]);

/** Generated code is not written by hand and is not held to the rule. */
const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['node_modules', 'generated', 'gen']);

interface FunctionLength {
  readonly name: string;
  /** 1-based line where the function's body starts. */
  readonly line: number;
  readonly ownLines: number;
}

type FunctionWithBody = ts.FunctionLikeDeclaration & { readonly body: ts.ConciseBody };

function isFunctionWithBody(node: ts.Node): node is FunctionWithBody {
  return ts.isFunctionLike(node) && 'body' in node && node.body !== undefined;
}

/** The function's own name, else the name of what it is assigned to (a variable, a property). */
function functionName(fn: FunctionWithBody): string {
  if (fn.name) return fn.name.getText();
  const parent = fn.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) {
    return parent.name.getText();
  }
  return '<anonymous>';
}

/**
 * The lines of each function in `source`, counting only its own: the lines of its body minus the
 * inner lines of the bodies of functions nested in it (the nested function's first and last
 * line stay with the one that holds it).
 */
export function functionLengths(fileName: string, source: string): FunctionLength[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const lineOf = (position: number): number => file.getLineAndCharacterOfPosition(position).line;
  const ownLines = (fn: FunctionWithBody): number => {
    const lines = new Set<number>();
    for (let line = lineOf(fn.body.getStart()); line <= lineOf(fn.body.getEnd()); line++) lines.add(line);
    const removeNested = (node: ts.Node): void => {
      ts.forEachChild(node, (child) => {
        if (!isFunctionWithBody(child)) return removeNested(child);
        for (let line = lineOf(child.body.getStart()) + 1; line < lineOf(child.body.getEnd()); line++) lines.delete(line);
      });
    };
    removeNested(fn.body);
    return lines.size;
  };
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunctionWithBody(node)) {
      found.push({ name: functionName(node), line: lineOf(node.body.getStart()) + 1, ownLines: ownLines(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRECTORIES.has(entry.name) ? [] : sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

describe('function length', () => {
  test('the counter counts a nested function body out of the function that holds it', () => {
    const source = [
      'function outer() {', // 1: outer's body starts
      '  const a = 1;', // 2
      '  const inner = () => {', // 3: inner's body starts, stays with outer
      '    const b = 2;', // 4: inner only
      '    return b;', // 5: inner only
      '  };', // 6: stays with outer
      '  return a + inner();', // 7
      '}', // 8
    ].join('\n');
    const lengths = functionLengths('sample.ts', source);
    expect(lengths).toEqual([
      { name: 'outer', line: 1, ownLines: 6 },
      { name: 'inner', line: 3, ownLines: 4 },
    ]);
  });

  test('the counter names methods, object properties and anonymous functions', () => {
    const source = [
      'class A { run() { return 1; } }',
      'const table = { handle: function () { return 2; } };',
      '[1].map(function () { return 3; });',
    ].join('\n');
    expect(functionLengths('sample.ts', source).map((f) => f.name)).toEqual(['run', 'handle', '<anonymous>']);
  });

  test(`no function in src/ holds ${MAX_OWN_LINES} or more lines of its own`, () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(100);
    const tooLong: string[] = [];
    const stillLong = new Set<string>();
    for (const file of files) {
      const relative = path.relative(SRC, file).split(path.sep).join('/');
      for (const fn of functionLengths(file, fs.readFileSync(file, 'utf8'))) {
        if (fn.ownLines < MAX_OWN_LINES) continue;
        const key = `${relative}#${fn.name}`;
        if (EXCEPTIONS.has(key)) stillLong.add(key);
        else tooLong.push(`src/${relative}:${fn.line} ${fn.name} has ${fn.ownLines} lines of its own; split it into named steps`);
      }
    }
    expect(tooLong).toEqual([]);
    const split = [...EXCEPTIONS].filter((key) => !stillLong.has(key));
    expect(split.map((key) => `${key} is under ${MAX_OWN_LINES} lines now: remove it from EXCEPTIONS`)).toEqual([]);
  });
});
