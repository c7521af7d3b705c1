/**
 * How an app's own failure reads to its user: the few lines of stderr it wrote last (its
 * stack frames left out), and a hint when the failure is a known kind of setup mistake.
 */

/** At most this many lines of the app's stderr are shown. */
const STDERR_LINES = 8;

const STACK_FRAME = /^\s+at\s.+/;

/**
 * The last lines the app wrote to stderr, as written, each indented by two spaces: stack
 * frames are left out (one line says how many), and older lines are counted, not shown.
 * Empty when the app wrote nothing.
 */
export function stderrExcerpt(stderr: string, maxLines = STDERR_LINES): string {
  const lines: string[] = [];
  let frames = 0;
  const flushFrames = (): void => {
    if (frames > 0) lines.push(`    ... ${frames} stack frame${frames === 1 ? '' : 's'}`);
    frames = 0;
  };
  for (const line of stderr.replace(/\r\n/g, '\n').trimEnd().split('\n')) {
    if (STACK_FRAME.test(line)) {
      frames += 1;
      continue;
    }
    flushFrames();
    lines.push(line);
  }
  flushFrames();
  while (lines.length > 0 && (lines[0] as string).trim() === '') lines.shift();
  if (lines.length === 0) return '';
  const shown = lines.slice(-maxLines);
  const earlier = lines.length - shown.length;
  const head = earlier > 0 ? [`  (${earlier} earlier line${earlier === 1 ? '' : 's'} not shown)`] : [];
  return [...head, ...shown.map((l) => `  ${l}`)].join('\n');
}

const COMMAND_NOT_FOUND =
  'the command in cdktf.json "app" was not found: check its spelling, and that its tool is installed in the project (e.g. npm install --save-dev tsx)';

/** The npm spec that installs a package: its name, except for fleetform, which is not on the registry. */
export type InstallSpec = (pkg: string) => string;

interface KnownMistake {
  readonly pattern: RegExp;
  readonly hint: (match: RegExpExecArray, installSpec: InstallSpec) => string;
}

/** Setup mistakes recognized in an app's error message or stderr, in order of precedence. */
const KNOWN_MISTAKES: readonly KnownMistake[] = [
  {
    pattern: /Cannot find (?:module|package) '([^']+)'/,
    hint: (m, installSpec) => {
      const specifier = m[1] as string;
      if (specifier.startsWith('.') || specifier.startsWith('/')) return `check the path ${specifier} the app imports`;
      // The package of `@scope/name/sub` is `@scope/name`; of `name/sub`, `name`.
      const pkg = specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/');
      return `install ${pkg} in the project (npm install ${installSpec(pkg)}), or run fleetform in the folder whose node_modules holds it`;
    },
  },
  {
    pattern: /Unknown file extension "\.(?:ts|mts|cts)"|ERR_UNKNOWN_FILE_EXTENSION/,
    hint: () => 'Node does not run TypeScript by itself here: set "app" in cdktf.json to "npx tsx main.ts" (or compile the app first)',
  },
  {
    pattern: /Cannot use import statement outside a module|ERR_REQUIRE_ESM|require\(\) of ES Module/,
    hint: () =>
      'the app mixes ES modules and CommonJS: load ES-module-only packages with `await import(...)`, or mark the project "type": "module" in package.json (tsx runs either)',
  },
  {
    pattern: /TSError: ⨯ Unable to compile TypeScript|error TS\d{4}:/,
    hint: () =>
      'the app does not type-check: fix the errors above (npx tsc --noEmit lists them), or run it with tsx, which does not check types',
  },
  {
    pattern: /JavaScript heap out of memory|Reached heap limit/,
    hint: () => "the app ran out of memory: give it more, e.g. NODE_OPTIONS=--max-old-space-size=8192 (fleetform's default is 4096)",
  },
  {
    pattern: /(?:command not found|not recognized as an internal or external command|: not found)\s*$/m,
    hint: () => COMMAND_NOT_FOUND,
  },
];

/**
 * The hint for a failure whose text shows a known mistake; a shell's "not found" code 127
 * counts as one. A missing package's install names the spec `installSpec` gives it.
 */
export function knownMistakeHint(text: string, exitCode?: number | null, installSpec: InstallSpec = (pkg) => pkg): string | undefined {
  for (const mistake of KNOWN_MISTAKES) {
    const m = mistake.pattern.exec(text);
    if (m) return mistake.hint(m, installSpec);
  }
  return exitCode === 127 ? COMMAND_NOT_FOUND : undefined;
}
