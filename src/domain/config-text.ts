/**
 * A machine config as the JSON text a part write sends: keys in the order the config holds
 * them, integers as integers. A number that is not a safe integer (its double stands for
 * more than one integer) is written as the integer literal of a source text that denotes it,
 * so an integer above 2^53 read from a part's stored text goes back exactly as it was read.
 */

/** A JSON string token (skipped) or a JSON number token. */
const TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
const INTEGER = /^-?\d+$/;

/**
 * The integer literals of `texts` that a double cannot hold exactly, by the double they
 * parse to. A double two different literals parse to is left out: which one a value stands
 * for is not known.
 */
export function unsafeIntegerLiterals(texts: readonly string[]): Map<number, string> {
  const found = new Map<number, string>();
  const ambiguous = new Set<number>();
  for (const text of texts) {
    for (const [token] of text.matchAll(TOKEN)) {
      if (!INTEGER.test(token)) continue;
      const value = Number(token);
      if (Number.isSafeInteger(value) || ambiguous.has(value)) continue;
      const seen = found.get(value);
      if (seen === undefined) found.set(value, token);
      else if (seen !== token) {
        found.delete(value);
        ambiguous.add(value);
      }
    }
  }
  return found;
}

function write(value: unknown, literals: ReadonlyMap<number, string>): string {
  if (typeof value === 'number') return literals.get(value) ?? JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item: unknown) => (item === undefined ? 'null' : write(item, literals))).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${write(record[key], literals)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * The JSON text of `config`, keys in their order; a number that is not a safe integer is
 * written as the literal `integersFrom` (texts the config was read from) gives it.
 */
export function configText(config: Readonly<Record<string, unknown>>, integersFrom: readonly string[] = []): string {
  const literals = unsafeIntegerLiterals(integersFrom);
  // JSON.stringify writes plain JSON data the same way (own keys in order, undefined left out), only faster.
  return literals.size === 0 ? JSON.stringify(config) : write(config, literals);
}
