/**
 * Strings in Terraform's JSON syntax are templates: `${...}` interpolates and `%{...}` is a
 * directive. A literal `${` is written `$${` and a literal `%{` is written `%%{`. Terraform
 * reads the escapes left to right (`$$${x}` is `$` then the literal `${x}`), and
 * unescapeTemplate does the same, so unescapeTemplate(escapeTemplate(s)) is s for every s.
 */

/** Literal text as Terraform's JSON syntax writes it: `${` as `$${`, `%{` as `%%{`. */
export function escapeTemplate(literal: string): string {
  if (!literal.includes('{')) return literal;
  return literal.replace(/([$%])\{/g, '$1$1{');
}

/** `$${` and `%%{` escapes, as Terraform reads them, left to right. */
export const TEMPLATE_ESCAPE_PATTERN = /\$\$\{|%%\{/g;

/**
 * Template text back to the literal it escapes: `$${` is `${`, `%%{` is `%{`. A `${...}`
 * that is not escaped is left as written (older synthesized output wrote placeholders such
 * as `${environment.HOME}` unescaped; they are still read literally).
 */
export function unescapeTemplate(text: string): string {
  if (!text.includes('{')) return text;
  return text.replace(TEMPLATE_ESCAPE_PATTERN, (escape) => escape.slice(1));
}
