import type { JsonValue } from '../json';

const INDENT = '  ';
/** A literal longer than this is written over several lines. */
const LINE_WIDTH = 96;

/** A TypeScript string literal in single quotes; `${...}` stays as written (it is not a template). */
export function stringLiteral(text: string): string {
  let out = "'";
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === "'") out += "\\'";
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f || code === 0x2028 || code === 0x2029) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}'`;
}

/**
 * A property key: bare when it is an identifier, quoted otherwise, and `__proto__` computed
 * (a quoted `'__proto__'` key would set the object's prototype instead of a property).
 */
export function propertyKey(key: string): string {
  if (key === '__proto__') return `['__proto__']`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : stringLiteral(key);
}

/** A piece of code that is already written: inserted as it is. */
export class Code {
  constructor(readonly text: string) {}
}

/** What a literal may hold: JSON values, code, and objects and arrays of them. */
export type Literal = JsonValue | Code | undefined | readonly Literal[] | { readonly [key: string]: Literal };

function isLiteralObject(v: Literal): v is { readonly [key: string]: Literal } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Code);
}

/** A value as a TypeScript expression: one line when short, else one entry per line at `depth`. Undefined object entries are left out. */
export function literal(value: Literal, depth = 0): string {
  if (value instanceof Code) return value.text;
  if (value === undefined || value === null) return value === null ? 'null' : 'undefined';
  if (typeof value === 'string') return stringLiteral(value);
  if (typeof value === 'number') return Object.is(value, -0) ? '0' : String(value);
  if (typeof value === 'boolean') return String(value);
  const inner = INDENT.repeat(depth + 1);
  const outer = INDENT.repeat(depth);
  if (Array.isArray(value)) {
    const items = (value as readonly Literal[]).map((v) => literal(v, depth + 1));
    const flat = `[${items.join(', ')}]`;
    return flat.length <= LINE_WIDTH && !flat.includes('\n') ? flat : `[\n${items.map((i) => `${inner}${i},`).join('\n')}\n${outer}]`;
  }
  if (!isLiteralObject(value)) return 'undefined';
  const entries = Object.keys(value)
    .filter((k) => value[k] !== undefined)
    .map((k) => `${propertyKey(k)}: ${literal(value[k], depth + 1)}`);
  if (entries.length === 0) return '{}';
  const flat = `{ ${entries.join(', ')} }`;
  return flat.length <= LINE_WIDTH && !flat.includes('\n') ? flat : `{\n${entries.map((e) => `${inner}${e},`).join('\n')}\n${outer}}`;
}

/** Lines of code with their indentation: blocks open and close, literals indent with them. */
export class CodeWriter {
  private readonly lines: string[] = [];
  private depth = 0;

  /** One line at the current indentation (an empty line stays empty). */
  line(text = ''): this {
    this.lines.push(text === '' ? '' : `${INDENT.repeat(this.depth)}${text}`);
    return this;
  }

  /** `head {`, the body one level in, then `}` (and `tail` after it). */
  block(head: string, body: () => void, tail = ''): this {
    this.line(`${head} {`);
    this.depth++;
    body();
    this.depth--;
    return this.line(`}${tail}`);
  }

  /** Writes the following lines at `depth` levels in. */
  indentTo(depth: number): this {
    this.depth = depth;
    return this;
  }

  /** Lines already indented (another writer's output), as they are. */
  raw(text: string): this {
    const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
    this.lines.push(...lines);
    return this;
  }

  /** A literal written at the current indentation. */
  literal(value: Literal): string {
    return literal(value, this.depth);
  }

  toString(): string {
    return `${this.lines.join('\n')}\n`;
  }
}
