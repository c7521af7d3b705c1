/**
 * A stack's outputs after apply: each `TerraformOutput` value with its references to
 * fleetform resources replaced by what the state holds. A value that still refers to
 * something else (another provider's resource) is not known to fleetform; a sensitive
 * output is evaluated but never kept or shown.
 */
import { resolveReferences } from './desired/references';
import type { DesiredStack } from './desired/stack';
import { isObject, isUnknown, type JsonValue } from './json';
import type { State, StateOutput } from './state/schema';

function holdsPlaceholder(value: JsonValue): boolean {
  if (isUnknown(value)) return true;
  if (typeof value === 'string') return value.includes('${');
  if (Array.isArray(value)) return value.some(holdsPlaceholder);
  if (isObject(value)) return Object.values(value).some(holdsPlaceholder);
  return false;
}

/** The outputs of `stack` as its state now makes them, by name. */
export function evaluateOutputs(stack: DesiredStack, state: State): Record<string, StateOutput> {
  const out: Record<string, StateOutput> = {};
  for (const o of stack.outputs ?? []) {
    const value = resolveReferences(o.value, (ref) => state.resources[ref.address]?.outputs[ref.output]);
    const known = !holdsPlaceholder(value);
    out[o.name] = { value: o.sensitive || !known ? null : value, sensitive: o.sensitive, known };
  }
  return out;
}

/** One `name = value` line per output, as Terraform prints them. */
export function formatOutputs(outputs: Readonly<Record<string, StateOutput>>): string[] {
  return Object.keys(outputs)
    .sort()
    .map((name) => {
      const o = outputs[name] as StateOutput;
      if (o.sensitive) return `${name} = <sensitive>`;
      if (!o.known) return `${name} = (known only to Terraform: it refers to another provider's resource)`;
      return `${name} = ${JSON.stringify(o.value, null, 2)}`;
    });
}
