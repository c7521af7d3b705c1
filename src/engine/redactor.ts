/**
 * The one rule for secrets in text leaving a process (a log line, a webhook body, an event,
 * a page, an error printed): every secret value the process knows is replaced by
 * `[redacted]` wherever it appears in clear, JSON-escaped, URL-encoded, base64, base64url
 * (at any of the three byte alignments, as inside a longer encoded text) or hex (lower or
 * upper case), and so is a long prefix of any of those forms.
 *
 * - A value shorter than MIN_SECRET_LENGTH is not known as a secret: such text (`true`,
 *   `admin`, a port) is too common to tell apart from the words around it.
 * - A value of at least PREFIX_SECRET_LENGTH characters is also found by its start: the
 *   first PREFIX_BYTES bytes of it (8 characters in clear, 16 hex digits, 11 base64
 *   characters) and however much more follows, so a truncated secret goes too.
 */
import { isSecretEnvName } from '../domain/module-env';

export const MIN_SECRET_LENGTH = 6;
export const PREFIX_SECRET_LENGTH = 12;
export const PREFIX_BYTES = 8;
export const REDACTED = '[redacted]';

/** One form of a secret to look for: the text, and how much of its start makes a match. */
interface Needle {
  readonly form: string;
  readonly head: number;
}

interface IndexedNeedle extends Needle {
  readonly headText: string;
}

/** What replaces a base64 text's bytes: the characters that depend on bytes outside the secret are dropped. */
function base64Forms(bytes: Buffer): string[] {
  const out: string[] = [];
  for (let offset = 0; offset < 3; offset += 1) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    // Leading characters hold bits of the filler bytes; the last one (when the length is not a multiple of 3) of what follows.
    const lead = offset === 0 ? 0 : offset + 1;
    const total = offset + bytes.length;
    const trail = total % 3 === 0 ? 0 : 4 - Math.ceil(((total % 3) * 8) / 6) + 1;
    const form = encoded.slice(lead, encoded.length - trail);
    if (form.length > 0) out.push(form);
  }
  return out;
}

function base64url(b64: string): string {
  return b64.replace(/\+/g, '-').replace(/\//g, '_');
}

/** Every form a secret may take in text, with the length of the start that gives it away. */
export function secretForms(secret: string): Needle[] {
  const bytes = Buffer.from(secret, 'utf8');
  const prefix = secret.length >= PREFIX_SECRET_LENGTH;
  const clearHead = (form: string): number => (prefix ? Math.min(form.length, PREFIX_BYTES) : form.length);
  const needles: Needle[] = [];
  const add = (form: string, head: number): void => {
    if (form.length > 0 && !needles.some((n) => n.form === form)) needles.push({ form, head: Math.min(head, form.length) });
  };
  add(secret, clearHead(secret));
  add(JSON.stringify(secret).slice(1, -1), clearHead(secret));
  add(encodeURIComponent(secret), clearHead(secret));
  const hex = bytes.toString('hex');
  const hexHead = prefix ? PREFIX_BYTES * 2 : hex.length;
  add(hex, hexHead);
  add(hex.toUpperCase(), hexHead);
  for (const b64 of base64Forms(bytes)) {
    const head = prefix ? Math.ceil((PREFIX_BYTES * 4) / 3) : b64.length;
    add(b64, head);
    add(base64url(b64), head);
  }
  return needles;
}

/** The span of `text` a needle covers from `at`, where its head starts: the head and as much of the rest of the form as follows. */
function spanAt(text: string, needle: Needle, at: number): [number, number] {
  let end = at + needle.head;
  let i = needle.head;
  while (i < needle.form.length && end < text.length && text[end] === needle.form[i]) {
    end += 1;
    i += 1;
  }
  return [at, end];
}

/**
 * Every head is at least MIN_SECRET_LENGTH characters: needles are also indexed by their
 * first KEY_LENGTH and by their whole head, so that with many secrets (a fleet's machine
 * secrets) a text is scanned once, about one lookup per character, rather than once per needle.
 */
const KEY_LENGTH = MIN_SECRET_LENGTH;
/** Up to this many needles, one indexOf each is quicker than the scan. */
const SCAN_ABOVE = 48;

/** The secret parts of a URL: its password, and every path segment and query value long enough to be a token. */
export function urlSecrets(text: string): string[] {
  let url: URL;
  try {
    url = new URL(text.trim().replace(/^slack:/, ''));
  } catch {
    return [];
  }
  const parts = [decodeURIComponent(url.password), ...url.pathname.split('/').map(safeDecode), ...[...url.searchParams.values()]];
  return parts.filter((p) => p.length >= PREFIX_SECRET_LENGTH);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** fleetform's own variables that hold secrets (besides any whose name looks secret) and the ones holding URLs with tokens. */
const SECRET_VARIABLES = ['FLEETFORM_API_KEY', 'FLEETFORM_DASHBOARD_TOKEN', 'FLEETFORM_GIT_TOKEN'];
const URL_VARIABLES = ['FLEETFORM_WEBHOOK_URL', 'FLEETFORM_WEBHOOK_URLS'];

/** The secrets a process holds: added as it learns them, applied by `redact` to every text it sends out. */
export class Redactor {
  private readonly needles: IndexedNeedle[] = [];
  /** The first KEY_LENGTH characters of every head: most positions of a text start none. */
  private readonly keys = new Set<string>();
  /** Needles by their exact head, and the lengths heads have. */
  private readonly byHead = new Map<string, IndexedNeedle[]>();
  private headLengths: number[] = [];
  /** The shortest head each form is found by. */
  private readonly heads = new Map<string, number>();
  private readonly known = new Set<string>();

  private addNeedle(needle: Needle): void {
    const shortest = this.heads.get(needle.form);
    if (shortest !== undefined && shortest <= needle.head) return;
    this.heads.set(needle.form, needle.head);
    const n = { ...needle, headText: needle.form.slice(0, needle.head) };
    this.needles.push(n);
    this.keys.add(n.headText.slice(0, KEY_LENGTH));
    const list = this.byHead.get(n.headText);
    if (list) list.push(n);
    else this.byHead.set(n.headText, [n]);
    if (!this.headLengths.includes(n.head)) this.headLengths = [...this.headLengths, n.head].sort((a, b) => a - b);
  }

  /** Calls `found` with each span a needle covers in `text`, until it returns true. */
  private search(text: string, found: (span: [number, number]) => boolean): void {
    if (this.needles.length <= SCAN_ABOVE) {
      for (const n of this.needles) {
        for (let at = text.indexOf(n.headText); at !== -1;) {
          const span = spanAt(text, n, at);
          if (found(span)) return;
          at = text.indexOf(n.headText, span[1]);
        }
      }
      return;
    }
    for (let at = 0; at + KEY_LENGTH <= text.length; at += 1) {
      if (!this.keys.has(text.slice(at, at + KEY_LENGTH))) continue;
      for (const length of this.headLengths) {
        if (at + length > text.length) break;
        for (const n of this.byHead.get(text.slice(at, at + length)) ?? []) if (found(spanAt(text, n, at))) return;
      }
    }
  }

  /** Knows `secret` from now on (a value too short to tell apart is ignored). */
  add(secret: string | undefined | null): this {
    if (typeof secret !== 'string') return this;
    for (const value of new Set([secret, secret.trim()])) {
      if (value.length < MIN_SECRET_LENGTH || this.known.has(value)) continue;
      this.known.add(value);
      for (const n of secretForms(value)) this.addNeedle(n);
    }
    return this;
  }

  /** Knows the token parts of a URL (a webhook's, a repository's): its password, long path segments and query values. */
  addUrl(url: string | undefined): this {
    if (url) for (const part of urlSecrets(url)) this.add(part);
    return this;
  }

  /** Knows every string inside a JSON value (a config part declared secret). */
  addValue(value: unknown): this {
    if (typeof value === 'string') this.add(value);
    else if (Array.isArray(value)) for (const v of value) this.addValue(v);
    else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) this.addValue(v);
    return this;
  }

  /** Knows the secrets of an environment: fleetform's own, the webhook URLs' tokens and every variable whose name looks secret. */
  addEnvironment(env: NodeJS.ProcessEnv): this {
    for (const name of SECRET_VARIABLES) this.add(env[name]);
    for (const name of URL_VARIABLES) for (const url of (env[name] ?? '').split(/[\s,]+/)) this.addUrl(url);
    for (const [name, value] of Object.entries(env)) if (isSecretEnvName(name) && !name.endsWith('_ID')) this.add(value);
    return this;
  }

  /** How many values it knows. */
  get size(): number {
    return this.known.size;
  }

  /** Whether `text` holds anything to redact. */
  finds(text: string): boolean {
    let hit = false;
    this.search(text, () => (hit = true));
    return hit;
  }

  /** `text` with every secret form (and long prefix) replaced by `[redacted]`. */
  redact(text: string): string {
    if (this.needles.length === 0 || text.length < MIN_SECRET_LENGTH) return text;
    const spans: Array<[number, number]> = [];
    this.search(text, (span) => {
      spans.push(span);
      return false;
    });
    if (spans.length === 0) return text;
    spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    let out = '';
    let from = 0;
    let open: [number, number] | undefined;
    for (const span of spans) {
      if (open && span[0] <= open[1]) {
        open[1] = Math.max(open[1], span[1]);
        continue;
      }
      if (open) out += REDACTED;
      out += text.slice(from, span[0]);
      open = [span[0], span[1]];
      from = span[1];
    }
    if (open) {
      out += REDACTED;
      from = open[1];
    }
    return out + text.slice(from);
  }

  /** A value with every string in it (keys too) redacted; the value itself when nothing in it is secret. */
  redactDeep<T>(value: T): T {
    if (this.needles.length === 0) return value;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (text === undefined || !this.finds(text)) return value;
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (Array.isArray(value)) return value.map((v) => this.walk(v));
    if (value === null || typeof value !== 'object' || value instanceof Date) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[this.redact(k)] = this.walk(v);
    return out;
  }
}

/**
 * The process's redactor: it knows this process's environment's secrets from the start, and
 * each secret the engine reads as it reads it (secrets by reference, secret env entries,
 * values at secret paths, what an app hands over, the embedded emulator's key).
 */
export const processRedactor = new Redactor().addEnvironment(process.env);
