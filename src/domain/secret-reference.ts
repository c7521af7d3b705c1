import { z } from 'zod';
import { childPath } from './json-path';

/**
 * A secret is a value at a path of a machine config. Code and synthesized files never hold
 * it: a reference stands in its place, saying where the value is read when a plan or an
 * apply needs it. The service's stored config holds the value itself.
 *
 * A reference is a typed object, never a string, so it cannot be mistaken for a value:
 * `{ "from": "env", "name": "ACME_TOKEN" }` (an environment variable of the process that
 * plans or applies), `{ "from": "file", "path": "/run/secrets/acme-token" }` (a file's
 * content, one trailing line break dropped) or `{ "from": "app", "id": "value-1" }` (a value
 * the app held and handed to fleetform's engine, in memory, while the engine ran it; the id
 * says nothing of the value).
 */

/** An environment variable name a shell can set: letters, digits and `_`, not starting with a digit. */
export const ENV_VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const envSecretReferenceSchema = z.strictObject({
  from: z.literal('env'),
  name: z.string().regex(ENV_VARIABLE_NAME, 'an environment variable name is letters, digits and _, not starting with a digit'),
});

export const fileSecretReferenceSchema = z.strictObject({
  from: z.literal('file'),
  path: z.string().min(1, 'a file reference needs the path of the file'),
});

/** An id the app gives a value it hands over: letters, digits, `-` and `_`. */
export const APP_SECRET_ID = /^[A-Za-z0-9_-]{1,64}$/;

export const appSecretReferenceSchema = z.strictObject({
  from: z.literal('app'),
  id: z.string().regex(APP_SECRET_ID, 'an app secret id is 1 to 64 letters, digits, - and _'),
});

export const secretReferenceSchema = z.discriminatedUnion('from', [
  envSecretReferenceSchema,
  fileSecretReferenceSchema,
  appSecretReferenceSchema,
]);

export type SecretReference = z.infer<typeof secretReferenceSchema>;

/**
 * The references of a machine, by the path of the value in its config as plans name it
 * (lists keyed by entry name: `modules.acme_sensors.env.API_TOKEN`). As Terraform types
 * it: a map of maps of strings, each inner map one reference.
 */
export const secretReferencesSchema = z.record(
  z.string().min(1, 'a secret reference needs the path of its value'),
  z.record(z.string(), z.string()).superRefine((value, ctx) => {
    const parsed = secretReferenceSchema.safeParse(value);
    if (!parsed.success)
      for (const issue of parsed.error.issues)
        ctx.addIssue({
          code: 'custom',
          path: issue.path,
          message: `${issue.message} (a secret reference is {"from":"env","name":...}, {"from":"file","path":...} or {"from":"app","id":...})`,
        });
  }),
);

export type SecretReferences = Readonly<Record<string, SecretReference>>;

/** Where a reference reads its value, in words: `environment variable ACME_TOKEN`, `file /run/secrets/x`, `the app (value-1)`. */
export function describeSecretReference(ref: SecretReference): string {
  if (ref.from === 'env') return `environment variable ${ref.name}`;
  if (ref.from === 'file') return `file ${ref.path}`;
  return `the app (${ref.id})`;
}

/** What stands for a secret given by reference where a config is checked before its values are read: never a value. */
export function secretStandIn(ref: SecretReference): string {
  return `<secret from ${describeSecretReference(ref)}>`;
}

/** Whether a config's value is a secret's stand-in (secretStandIn): checks of what the value holds do not apply to it. */
export function isSecretStandIn(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith('<secret from ') && value.endsWith('>');
}

/** The place a reading of secrets takes its values from: injected, so the rule stays pure. */
export interface SecretSource {
  /** The variable's value, or undefined when it is unset. */
  env(name: string): string | undefined;
  /** The file's content, or an error saying why it cannot be read. */
  file(path: string): { value: string } | { error: string };
  /** The value the app handed over under this id while fleetform ran it, or undefined when it did not. */
  app(id: string): string | undefined;
}

/** A reference that gives no value, with what to do about it. */
export interface UnresolvedSecret {
  readonly message: string;
  readonly hint: string;
}

/**
 * The value a reference names, or why it has none. An empty variable or file counts as
 * missing: a secret is never empty, and an empty one is almost always a variable not
 * exported to this process.
 */
export function resolveSecretReference(ref: SecretReference, source: SecretSource): { value: string } | { unresolved: UnresolvedSecret } {
  if (ref.from === 'env') {
    const value = source.env(ref.name);
    if (value === undefined || value === '') {
      return {
        unresolved: {
          message: `environment variable ${ref.name} ${value === undefined ? 'is not set' : 'is empty'}`,
          hint: `export ${ref.name} with the secret in the shell or job that runs the plan and the apply`,
        },
      };
    }
    return { value };
  }
  if (ref.from === 'app') return resolveAppReference(ref.id, source);
  const read = source.file(ref.path);
  if ('error' in read)
    return {
      unresolved: {
        message: `file ${ref.path} cannot be read: ${read.error}`,
        hint: 'write the secret to that file (readable by this user), or point the reference at the right one',
      },
    };
  const value = read.value.endsWith('\r\n') ? read.value.slice(0, -2) : read.value.endsWith('\n') ? read.value.slice(0, -1) : read.value;
  if (value === '') return { unresolved: { message: `file ${ref.path} is empty`, hint: 'write the secret to that file' } };
  return { value };
}

/**
 * A value the app handed over exists only in the memory of the fleetform process that ran
 * the app: a saved plan applied later, a plan of a given synthesized output and Terraform
 * have none.
 */
function resolveAppReference(id: string, source: SecretSource): { value: string } | { unresolved: UnresolvedSecret } {
  const value = source.app(id);
  if (value !== undefined && value !== '') return { value };
  return {
    unresolved: {
      message:
        value === ''
          ? `the value the app gave with Secret.fromValue (${id}) is empty`
          : `the value the app gave with Secret.fromValue (${id}) is held only while fleetform runs the app, and this run did not (a saved plan, --synth-out, or Terraform)`,
      hint:
        value === ''
          ? 'give Secret.fromValue the secret itself'
          : 'run `fleetform plan` or `fleetform apply` on the project, which runs the app, without a saved plan or --synth-out; or read the secret where the plan runs: Secret.fromEnv("NAME") or Secret.fromFile("/path")',
    },
  };
}

/** The keys of a path written in childPath's notation (`a.b`, `a["odd key"]`, `a[2]`); undefined when it is not one. */
export function pathKeys(path: string): Array<string | number> | undefined {
  const keys: Array<string | number> = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === '[') {
      const close = path[i + 1] === '"' ? closingQuote(path, i + 2) + 1 : path.indexOf(']', i);
      if (close <= i || path[close] !== ']') return undefined;
      const inner = path.slice(i + 1, close);
      if (/^\d+$/.test(inner)) keys.push(Number(inner));
      else {
        try {
          const key: unknown = JSON.parse(inner);
          if (typeof key !== 'string') return undefined;
          keys.push(key);
        } catch {
          return undefined;
        }
      }
      i = close + 1;
      if (path[i] === '.') i++;
      continue;
    }
    const end = nextDelimiter(path, i);
    const key = path.slice(i, end);
    if (key === '') return undefined;
    keys.push(key);
    i = path[end] === '.' ? end + 1 : end;
  }
  return keys.length > 0 && childPathOf(keys) === path ? keys : undefined;
}

function closingQuote(path: string, from: number): number {
  for (let i = from; i < path.length; i++) {
    if (path[i] === '\\') i++;
    else if (path[i] === '"') return i;
  }
  return -1;
}

function nextDelimiter(path: string, from: number): number {
  for (let i = from; i < path.length; i++) if (path[i] === '.' || path[i] === '[') return i;
  return path.length;
}

/** A path of keys in childPath's notation. */
export function childPathOf(keys: ReadonlyArray<string | number>): string {
  return keys.reduce<string>((path, key) => childPath(path, key), '');
}

/** The key an entry of a list takes in a path: its name when it has one, else its index. */
export function listEntryKey(entry: unknown, index: number): string | number {
  return entry !== null &&
    typeof entry === 'object' &&
    !Array.isArray(entry) &&
    typeof (entry as { name?: unknown }).name === 'string' &&
    (entry as { name: string }).name !== ''
    ? (entry as { name: string }).name
    : index;
}

/**
 * A config document (lists in their list form) with `value` at `path`, where a list's entry
 * is found by its name (listEntryKey) or index; objects on the way are copied, the rest
 * shared. Undefined when the path names no object to hold the value (an entry not there).
 */
export function withValueAt(
  doc: Record<string, unknown>,
  keys: ReadonlyArray<string | number>,
  value: unknown,
): Record<string, unknown> | undefined {
  const place = (node: unknown, at: number): unknown => {
    const key = keys[at] as string | number;
    const last = at === keys.length - 1;
    if (Array.isArray(node)) {
      const index = node.findIndex((entry, i) => listEntryKey(entry, i) === key);
      if (index < 0 || last) return undefined;
      const inner = place(node[index], at + 1);
      if (inner === undefined) return undefined;
      const copy = [...node];
      copy[index] = inner;
      return copy;
    }
    if (node === null || typeof node !== 'object' || typeof key !== 'string') return undefined;
    const record = node as Record<string, unknown>;
    if (last) return { ...record, [key]: value };
    // A missing object on the way (a module without env) is made.
    const inner = place(record[key] ?? (typeof keys[at + 1] === 'string' ? {} : undefined), at + 1);
    return inner === undefined ? undefined : { ...record, [key]: inner };
  };
  return place(doc, 0) as Record<string, unknown> | undefined;
}

/**
 * A config document (list form) without the value at `path` (found as withValueAt finds
 * it); an object the removal empties goes with it. The document is not changed.
 */
export function withoutValueAt<T>(doc: T, keys: ReadonlyArray<string | number>): T {
  const remove = (node: unknown, at: number): unknown => {
    const key = keys[at] as string | number;
    if (Array.isArray(node)) {
      const index = node.findIndex((entry, i) => listEntryKey(entry, i) === key);
      if (index < 0 || at === keys.length - 1) return node;
      const copy = [...node];
      copy[index] = remove(node[index], at + 1);
      return copy;
    }
    if (node === null || typeof node !== 'object' || typeof key !== 'string' || !Object.prototype.hasOwnProperty.call(node, key))
      return node;
    const record = node as Record<string, unknown>;
    const kept = at === keys.length - 1 ? undefined : remove(record[key], at + 1);
    const emptied =
      kept === undefined || (kept !== null && typeof kept === 'object' && !Array.isArray(kept) && Object.keys(kept).length === 0);
    // Keys keep their order: the synthesized text reads as the code wrote it.
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(record)) {
      if (k !== key) out[k] = v;
      else if (!emptied) out[k] = kept;
    }
    return out;
  };
  return remove(doc, 0) as T;
}

/** The attribute of a resource that holds its secrets by reference (see secretReferencesSchema). */
export const SECRET_REFERENCES_ATTRIBUTE = 'secrets';

/**
 * The environment variable that tells an app fleetform runs which file descriptor of its
 * process is the private channel for values it hands over (a pipe fleetform reads into
 * memory). Each value goes as one line of JSON: `{"id":"value-1","value":"..."}`.
 */
export const APP_SECRET_CHANNEL_VARIABLE = 'FLEETFORM_SECRET_CHANNEL_FD';

export const appSecretMessageSchema = z.strictObject({
  id: z.string().regex(APP_SECRET_ID),
  value: z.string(),
});

/** The values of a channel's text (lines of JSON), by id; lines that are not messages are counted, never shown (they may hold a value). */
export function readAppSecretMessages(text: string): { values: Map<string, string>; unreadable: number } {
  const values = new Map<string, string>();
  let unreadable = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      unreadable++;
      continue;
    }
    const parsed = appSecretMessageSchema.safeParse(raw);
    if (parsed.success) values.set(parsed.data.id, parsed.data.value);
    else unreadable++;
  }
  return { values, unreadable };
}
