/**
 * What of Terraform's expression syntax fleetform's engine evaluates, as Terraform does, in
 * a synthesized string (a template): `${count.index}`, `${each.key}`, `${each.value}` (and
 * `${each.value.a}` / `${each.value["a"]}`) in a resource with count or for_each, and a
 * resource's output `${fleetform_x.y.id}` (one instance: `[0]`, `["key"]`, `[count.index]`,
 * `[each.key]`). `$${` and `%%{` are escapes of a literal `${` and `%{`. A `${...}` naming a
 * machine-config placeholder (`environment.NAME`, `packages.NAME`), which older synthesized
 * output wrote unescaped, is read as the literal placeholder. Any other expression or
 * directive is refused by name: the engine never passes it through half evaluated.
 */

/**
 * An interpolation that uses Terraform's iteration (`${count.index}`, `${each.value.name}`,
 * `${fleetform_x.y[count.index].id}`, and ones the engine refuses such as
 * `${count.index + 1}`), not preceded by the `$` of an escape.
 */
export const ITERATION_INTERPOLATION = /(?<!\$)\$\{[^{}]*\b(?:count\.index|each\.key|each\.value)\b[^{}]*\}/g;

/** A resource output the engine resolves: type, name (with one instance's index) and output. */
export const RESOURCE_OUTPUT_EXPRESSION = /^(fleetform_[a-z_]+)\.([A-Za-z0-9_-]+(?:\[\d+\]|\["[^"\]]*"\])?)\.([A-Za-z0-9_]+)$/;

/** A machine-config placeholder key (`environment.NAME`, `packages...`), read literally when written unescaped. */
const PLACEHOLDER_EXPRESSION = /^(environment|packages)\.[^\s]+$/;

/**
 * The parts of a template, left to right as Terraform reads them: an escape (`$${`, `%%{`),
 * an interpolation `${...}` (its inside captured as `expression`) or a directive `%{...}`
 * (captured as `directive`).
 */
export const TEMPLATE_PART = /\$\$\{|%%\{|\$\{(?<expression>[^}]*)\}|%\{(?<directive>[^}]*)\}/g;

/** The first expression or directive of a string that fleetform's engine does not evaluate, as written; undefined when none. */
export function unevaluatedExpression(text: string): string | undefined {
  if (!text.includes('{')) return undefined;
  for (const m of text.matchAll(TEMPLATE_PART)) {
    const { expression, directive } = m.groups ?? {};
    if (directive !== undefined) return m[0];
    if (expression === undefined) continue;
    const inner = expression.trim();
    if (RESOURCE_OUTPUT_EXPRESSION.test(inner) || PLACEHOLDER_EXPRESSION.test(inner)) continue;
    return m[0];
  }
  return undefined;
}
