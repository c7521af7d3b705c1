import { childPath } from './json-path';
import { isEnvironmentPlaceholder } from './placeholders';
import { isWebhookNotification, webhookCarriesToken } from './triggers';

/**
 * Where a machine config holds secrets, declared once: masking in plans, state digests and
 * logs, and secrets given by reference, all read this. A pattern is a list of steps from
 * the config's root: a key, `*` for every entry of a list or every value of an object, or
 * `*!keys` for every value of an object but its `keys` list (API key handlers: the key ids
 * are identifiers, every other value is a key).
 */
export type SecretStep = string;

export interface SecretPathDeclaration {
  readonly pattern: readonly SecretStep[];
  readonly description: string;
  /** Only a value this says is secret, given the object holding it (a webhook URL carrying a token); absent: every value. */
  readonly holds?: (value: unknown, holder: Readonly<Record<string, unknown>>) => boolean;
}

export const CONFIG_SECRET_PATHS: readonly SecretPathDeclaration[] = [
  { pattern: ['remotes', '*', 'auth', 'credentials', 'payload'], description: "a remote's credential payload" },
  { pattern: ['remotes', '*', 'secret'], description: "a remote's location secret" },
  {
    pattern: ['auth', 'handlers', '*', 'config', '*!keys'],
    description: 'the keys of an API key handler (every value of its config but `keys`)',
  },
  { pattern: ['cloud', 'secret'], description: "the machine's secret" },
  { pattern: ['cloud', 'api_key', 'key'], description: "the machine's API key" },
  { pattern: ['cloud', 'location_secret'], description: 'the location secret' },
  { pattern: ['cloud', 'location_secrets', '*', 'secret'], description: 'the location secrets' },
  { pattern: ['cloud', 'tls_private_key'], description: "the machine's TLS private key" },
  { pattern: ['agent', 'network_configuration', 'hotspot_password'], description: "the provisioning hotspot's password" },
  { pattern: ['agent', 'additional_networks', '*', 'psk'], description: "a network's key" },
  { pattern: ['processes', '*', 'env', '*'], description: "a process's environment (often secret, with no schema to tell)" },
  {
    pattern: ['triggers', '*', 'notifications', '*', 'value'],
    description: "a trigger's webhook URL that carries a token (user info or a query string)",
    holds: (value, holder) => isWebhookNotification(holder) && webhookCarriesToken(value),
  },
];

/** One secret found in a config: where (list indices as `[i]`) and its steps. */
export interface FoundSecret {
  /** The path in the shared notation, e.g. `remotes[0].auth.credentials.payload`. */
  readonly path: string;
  /** The steps of the path: keys and list indices. */
  readonly steps: readonly (string | number)[];
  readonly value: unknown;
}

function walk(
  value: unknown,
  declared: SecretPathDeclaration,
  at: number,
  steps: (string | number)[],
  path: string,
  out: FoundSecret[],
  holder: Readonly<Record<string, unknown>> = {},
): void {
  const { pattern } = declared;
  if (at === pattern.length) {
    // A placeholder the machine fills in from its own environment is no secret value.
    if (value === undefined || value === null || value === '' || isEnvironmentPlaceholder(value)) return;
    if (declared.holds === undefined || declared.holds(value, holder)) out.push({ path, steps: [...steps], value });
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const step = pattern[at] as string;
  if (step === '*' || step === '*!keys') {
    const entries: Array<[string | number, unknown]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
    for (const [key, child] of entries) {
      if (step === '*!keys' && key === 'keys') continue;
      steps.push(key);
      walk(child, declared, at + 1, steps, childPath(path, key), out, value as Readonly<Record<string, unknown>>);
      steps.pop();
    }
    return;
  }
  if (Array.isArray(value) || !Object.prototype.hasOwnProperty.call(value, step)) return;
  steps.push(step);
  walk(
    (value as Record<string, unknown>)[step],
    declared,
    at + 1,
    steps,
    childPath(path, step),
    out,
    value as Readonly<Record<string, unknown>>,
  );
  steps.pop();
}

/** Every secret value of a config (list form, as stored), by the declared paths, in declaration order; environment placeholders are none. */
export function configSecrets(config: unknown): FoundSecret[] {
  const out: FoundSecret[] = [];
  for (const declared of CONFIG_SECRET_PATHS) walk(config, declared, 0, [], '', out);
  return out;
}
