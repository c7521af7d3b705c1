import { fstatSync, writeSync } from 'node:fs';
import { FleetformError } from '../domain/errors';
import {
  APP_SECRET_CHANNEL_VARIABLE,
  childPathOf,
  secretStandIn,
  listEntryKey,
  secretReferenceSchema,
  type SecretReference,
} from '../domain/secret-reference';

/** A secret's value given to code where no engine takes it: refused, since synthesis could only write it in clear. */
export class SecretValueRefusedError extends FleetformError {}

/** Marks a Secret of any copy of this library (cdktf's and cdktn's builds may meet in one app). */
const SECRET_BRAND = Symbol.for('fleetform.secret');
/** Set once any Secret is made, in any copy: until then a config holds none and is not walked. */
const SECRETS_MADE = Symbol.for('fleetform.secrets-made');
/** The text values acknowledged as secrets written in clear (Secret.plainText), shared by every copy. */
const PLAIN_TEXT_ACKNOWLEDGED = Symbol.for('fleetform.plain-text-secrets');
/** How many values this process handed over (Secret.fromValue), shared by every copy: the ids' sequence. */
const VALUES_HANDED_OVER = Symbol.for('fleetform.app-secret-values');

/**
 * A secret given by reference: where its value is read when fleetform (or the Terraform
 * provider) plans and applies, never the value. Give it wherever a config takes a secret,
 * e.g. a module's env:
 *
 * ```ts
 * new Module(machine, 'sensors', { moduleId: 'acme:sensors', env: { API_TOKEN: Secret.fromEnv('ACME_TOKEN') } });
 * ```
 *
 * Synthesis writes `{"from":"env","name":"ACME_TOKEN"}` in the machine's `secrets`, and
 * nothing at that place of its `config`; the service stores the value. A value the app
 * holds itself goes by Secret.fromValue, to fleetform's engine only.
 */
export class Secret {
  /** The value of an environment variable where the plan and the apply run. */
  static fromEnv(name: string): Secret {
    return new Secret(checkedReference({ from: 'env', name }, 'Secret.fromEnv'));
  }

  /** The content of a file where the plan and the apply run (one trailing line break dropped), e.g. a mounted CI or Kubernetes secret. */
  static fromFile(path: string): Secret {
    return new Secret(checkedReference({ from: 'file', path }, 'Secret.fromFile'));
  }

  /**
   * A value the app holds itself (read from a vault, derived, fetched), marked secret. When
   * fleetform's engine runs the app (`fleetform plan|apply`), the value goes to the engine
   * over a private channel (a pipe, kept in memory) and synthesis writes only
   * `{"from":"app","id":"value-1"}`: the id is the order of the call in the app, never
   * derived from the value. Run any other way (`cdktf synth`, `cdktn synth`, Terraform), the
   * value could reach Terraform only through the synthesized files: it is refused with a
   * SecretValueRefusedError, at the call. A saved plan (`fleetform plan --out`) applied later
   * has no app run, so it stops naming the machine and the field: apply without it.
   */
  static fromValue(value: string): Secret {
    if (typeof value !== 'string' || value === '')
      throw new FleetformError('Secret.fromValue: the value is empty', { hint: 'give Secret.fromValue the secret itself' });
    const id = `value-${nextValueNumber()}`;
    handOver(id, value);
    return new Secret({ from: 'app', id });
  }

  /**
   * A secret given as text, acknowledged as written in clear to the synthesized stack (the
   * machine's `secret_env`, which Terraform treats as sensitive; state and plans still hold
   * only digests and masks). For tests and throwaway values: anything that matters is read
   * where the plan runs (Secret.fromEnv, Secret.fromFile). Returns the text itself, so it
   * goes wherever text does; without it, a secret given as text is an error at synth.
   */
  static plainText(value: string): string {
    plainTextAcknowledged().add(value);
    return value;
  }

  /** Whether x is a Secret (of any copy of this library). */
  static isSecret(x: unknown): x is Secret {
    return typeof x === 'object' && x !== null && (x as { [SECRET_BRAND]?: unknown })[SECRET_BRAND] === true;
  }

  readonly [SECRET_BRAND] = true;

  private constructor(readonly reference: SecretReference) {
    Reflect.set(globalThis, SECRETS_MADE, true);
  }

  /** What stands for it where text is needed (checks of a config): never a value. */
  toString(): string {
    return secretStandIn(this.reference);
  }

  toJSON(): SecretReference {
    return { ...this.reference };
  }
}

function checkedReference(ref: SecretReference, api: string): SecretReference {
  const parsed = secretReferenceSchema.safeParse(ref);
  if (parsed.success) return parsed.data;
  throw new FleetformError(`${api}: ${parsed.error.issues.map((i) => i.message).join('; ')}`, {
    hint:
      ref.from === 'env'
        ? 'name the variable as a shell sets it, e.g. Secret.fromEnv("ACME_TOKEN")'
        : 'give the path of the file holding the secret',
  });
}

function nextValueNumber(): number {
  const n = ((Reflect.get(globalThis, VALUES_HANDED_OVER) as number | undefined) ?? 0) + 1;
  Reflect.set(globalThis, VALUES_HANDED_OVER, n);
  return n;
}

const NO_CHANNEL_HINT =
  'run the app with `fleetform plan` or `fleetform apply`, which take the value in memory; for `cdktf synth`, `cdktn synth` and Terraform, read the secret where the plan runs: Secret.fromEnv("NAME") (an environment variable) or Secret.fromFile("/path") (a mounted secret file)';

/** The channel fleetform's engine opened to this process, checked to be a pipe or socket pair: a value is never written to a file. */
function channel(): number {
  const announced = process.env[APP_SECRET_CHANNEL_VARIABLE];
  const fd = announced !== undefined && /^\d+$/.test(announced) ? Number(announced) : undefined;
  if (fd === undefined)
    throw new SecretValueRefusedError(
      'Secret.fromValue: the app is not run by fleetform, so a value it holds could reach Terraform only written in clear to the synthesized stack',
      { hint: NO_CHANNEL_HINT },
    );
  if (!isPipeOrSocket(fd))
    throw new SecretValueRefusedError(
      `Secret.fromValue: ${APP_SECRET_CHANNEL_VARIABLE} names descriptor ${fd}, which is not fleetform's channel in this process`,
      {
        hint: `run the app directly from cdktf.json's \`app\` command, without a step that closes descriptor ${fd}; or ${NO_CHANNEL_HINT}`,
      },
    );
  return fd;
}

function isPipeOrSocket(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isFIFO() || stat.isSocket();
  } catch {
    return false;
  }
}

function handOver(id: string, value: string): void {
  const fd = channel();
  const message = Buffer.from(`${JSON.stringify({ id, value })}\n`, 'utf8');
  let written = 0;
  while (written < message.length) written += writeSync(fd, message, written);
}

function plainTextAcknowledged(): Set<string> {
  let set = Reflect.get(globalThis, PLAIN_TEXT_ACKNOWLEDGED) as Set<string> | undefined;
  if (set === undefined) {
    set = new Set();
    Reflect.set(globalThis, PLAIN_TEXT_ACKNOWLEDGED, set);
  }
  return set;
}

/** `${environment.NAME}` placeholders: the machine fills them in from its own environment. */
const MACHINE_ENV_PLACEHOLDERS = /\$\{environment\.[A-Za-z_][A-Za-z0-9_]*\}/g;

/**
 * Whether a secret given as text would put a secret in clear in the synthesized stack: not
 * when it is empty, made only of `${environment.NAME}` placeholders (the value stays on the
 * machine), or acknowledged with Secret.plainText.
 */
export function isPlainTextSecret(value: string): boolean {
  if (value.replace(MACHINE_ENV_PLACEHOLDERS, '').trim() === '') return false;
  return !plainTextAcknowledged().has(value);
}

/** The hint of a secret given as text. */
export const PLAIN_TEXT_SECRET_HINT =
  'give it by reference, read where the plan and the apply run: Secret.fromEnv("NAME") or Secret.fromFile("/path"); a value the app holds, when fleetform runs the app: Secret.fromValue(value); ${environment.NAME} lets the machine fill it in from its own environment; Secret.plainText(value) writes it in clear in the synthesized stack on purpose (tests, throwaway values)';

/** Whether any Secret was made in this process: a config can hold one only then. */
export function anySecretMade(): boolean {
  return Reflect.get(globalThis, SECRETS_MADE) === true;
}

/** A config with its secrets found: text stands in for each, and each reference by its path. */
export interface ConfigSecrets<T> {
  /** The config with each Secret replaced by its text (for checks of the config alone: never synthesized). */
  readonly config: T;
  /** The references by the path of their value, as plans name it (list entries by name). */
  readonly references: Readonly<Record<string, SecretReference>>;
}

/**
 * The secrets anywhere in a config document (list form) under construction: any field of
 * any construct may hold a Secret, and this is where each becomes a reference by path.
 * The document is not changed; without any Secret it is given back as it is.
 */
export function configSecrets<T>(config: T): ConfigSecrets<T> {
  if (!anySecretMade()) return { config, references: {} };
  const references: Record<string, SecretReference> = {};
  const keys: Array<string | number> = [];
  const walk = (node: unknown): unknown => {
    if (Secret.isSecret(node)) {
      references[childPathOf(keys)] = { ...node.reference };
      return node.toString();
    }
    if (Array.isArray(node)) {
      let copy: unknown[] | undefined;
      node.forEach((entry, i) => {
        keys.push(listEntryKey(entry, i));
        const out = walk(entry);
        keys.pop();
        if (out !== entry) (copy ??= [...node])[i] = out;
      });
      return copy ?? node;
    }
    if (node === null || typeof node !== 'object') return node;
    let copy: Record<string, unknown> | undefined;
    for (const [k, v] of Object.entries(node)) {
      keys.push(k);
      const out = walk(v);
      keys.pop();
      if (out !== v) (copy ??= { ...(node as Record<string, unknown>) })[k] = out;
    }
    return copy ?? node;
  };
  const out = walk(config) as T;
  return { config: out, references };
}

/**
 * A field of a config document under construction that holds text or a Secret: a Secret
 * stays in place until `configSecrets` takes it out as a reference, so the document's
 * type (text, as the service stores it) holds it for that while.
 */
export function textOrSecret(value: string | Secret): string {
  return value as string;
}
