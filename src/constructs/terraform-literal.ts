import { ITERATION_INTERPOLATION } from '../domain/terraform-expressions';
import { escapeTemplate } from '../domain/template-escape';

/**
 * cdktf's marker of a string token (a reference such as a dataset's id) inside a string:
 * `${TfToken[TOKEN.12]}`. cdktf resolves it at synthesis to an interpolation such as
 * `${fleetform_dataset.boxes.id}`, which Terraform must evaluate, so it is never escaped.
 */
const STRING_TOKEN = /\$\{TfToken\[[a-zA-Z0-9:._-]+\]\}/g;

/**
 * What stays an interpolation: a cdktf token, and one using `count.index`, `each.key` or
 * `each.value` written in a string (no machine-config placeholder has those names: they
 * mean Terraform's iteration, which Terraform evaluates and fleetform's engine evaluates or
 * refuses by name).
 */
const KEPT_INTERPOLATION = new RegExp(`${STRING_TOKEN.source}|${ITERATION_INTERPOLATION.source}`, 'g');

/** A string's literal text escaped for Terraform's JSON syntax (`${` as `$${`, `%{` as `%%{`), its tokens and iteration interpolations kept. */
function literalString(s: string): string {
  // Without `${` or `%{` there is neither a token nor anything to escape.
  if (!s.includes('${') && !s.includes('%{')) return s;
  let out = '';
  let last = 0;
  for (const m of s.matchAll(KEPT_INTERPOLATION)) {
    out += escapeTemplate(s.slice(last, m.index)) + m[0];
    last = m.index + m[0].length;
  }
  return out + escapeTemplate(s.slice(last));
}

/**
 * An attribute value as synthesized: every string (at any depth) has its literal `${` and
 * `%{` escaped, so Terraform and OpenTofu take it as written, while cdktf tokens and
 * iteration interpolations (`${count.index}`, `${each.key}`, `${each.value}`) stay
 * interpolations. Every fleetform construct synthesizes its attributes through this.
 */
export function terraformLiteral(value: unknown): unknown {
  if (typeof value === 'string') return literalString(value);
  if (Array.isArray(value)) return value.map(terraformLiteral);
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[literalString(k)] = terraformLiteral(v);
    return out;
  }
  return value;
}

/** Attributes as synthesized: see terraformLiteral. */
export function terraformLiterals(attributes: Record<string, unknown>): Record<string, unknown> {
  return terraformLiteral(attributes) as Record<string, unknown>;
}
