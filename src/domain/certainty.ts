import { z } from 'zod';
import { MANAGED_CONFIG_SECTIONS, NAMED_LIST_SECTIONS } from './config';
import { childPath, type Issue, type ValidationResult } from './issue';
import { isObject } from './json-value';

/**
 * The findings that say the machine will certainly fail an item (a resource, module or
 * package), whatever else it runs. The service stores such a config and the machine runs
 * the rest; in code a certain failure is an error unless acknowledged.
 */
export const CERTAIN_FAILURE_CODES = [
  'module-version',
  'model-module-mismatch',
  'model-triplet',
  'api-triplet',
  'depends-on-missing',
  'depends-on-self',
  'depends-on-cycle',
  'duplicate-resource-name',
  'duplicate-module-name',
  'duplicate-module-id',
  'resource-name',
  'module-name',
  'package-name',
  'package-id',
  'package-type',
  'duplicate-package-name',
  'package-placeholder',
  'required',
  'max-instances',
  'capture-method',
  'module-viam-server',
  'trigger-webhook',
  'trigger-email',
  'trigger-capture-method',
  'trigger-condition',
  'trigger-event',
  'trigger-notification',
] as const;

/** The code of a finding that can be a certain failure. */
export type CertainFailureCode = (typeof CERTAIN_FAILURE_CODES)[number];

/** The finding code of an acknowledgment that matches nothing. */
export const UNMATCHED_ACKNOWLEDGMENT = 'acknowledgment-unmatched';

/** Whether a finding is a certain failure of one item: a warning the machine will not get past. */
export function isCertainFailure(issue: Issue): boolean {
  return issue.severity === 'warning' && issue.certainty === 'certain';
}

/** A certain failure code wants: the finding's code, its path (entries by name), and why the machine is left so. */
export interface Acknowledgment {
  readonly code: string;
  readonly path: string;
  readonly reason: string;
}

/** Acknowledgments as a machine's attribute holds them: by path, then by code, the reason. */
export const acknowledgedSchema = z.record(z.string().min(1), z.record(z.string().min(1), z.string().min(1)));
export type AcknowledgedAttribute = z.infer<typeof acknowledgedSchema>;

/** The attribute form of a list of acknowledgments. */
export function acknowledgedAttribute(list: readonly Acknowledgment[]): AcknowledgedAttribute {
  const out: AcknowledgedAttribute = {};
  for (const a of list) (out[a.path] ??= {})[a.code] = a.reason;
  return out;
}

/** The acknowledgments of an attribute, as a list. */
export function acknowledgmentsOf(attribute: AcknowledgedAttribute | undefined): Acknowledgment[] {
  return Object.entries(attribute ?? {}).flatMap(([path, codes]) =>
    Object.entries(codes).map(([code, reason]) => ({ code, path, reason })),
  );
}

/** The sections whose entries a finding's path names: each entry has a name of its own. */
const NAMED_SECTIONS: readonly string[] = [...MANAGED_CONFIG_SECTIONS, ...NAMED_LIST_SECTIONS];
const ENTRY_INDEX = new RegExp(`^(${NAMED_SECTIONS.join('|')})\\[(\\d+)\\](.*)$`);

/**
 * The path of a finding with its entry named rather than numbered (`components[2].model` ->
 * `components.camera-1.model`, `triggers[0].notifications[1].value` -> `triggers.alert.notifications[1].value`).
 */
export function namedPath(config: unknown, path: string): string {
  const m = ENTRY_INDEX.exec(path);
  if (!m || !isObject(config)) return path;
  const list = config[m[1] as string];
  const entry = Array.isArray(list) ? (list[Number(m[2])] as unknown) : undefined;
  const name = isObject(entry) ? entry.name : undefined;
  return typeof name === 'string' ? `${childPath(m[1] as string, name)}${m[3] ?? ''}` : path;
}

/** How a reviewer acknowledges one certain failure in code. */
export function acknowledgmentHint(code: string, path: string): string {
  return `or, if the machine is to stay so, acknowledge it: acknowledged: [{ code: '${code}', path: ${JSON.stringify(path)}, reason: '...' }]`;
}

/** Options of {@link inCode}. */
export interface InCodeOptions {
  /** Codes whose acknowledgments are judged elsewhere (at plan, with the fragments resolved): never reported unmatched here. */
  readonly judgedElsewhere?: ReadonlySet<string>;
  /** Certain failures of these codes are only possible here (an import the machine runs without may bring what they lack). */
  readonly onlyPossible?: ReadonlySet<string>;
}

/**
 * The findings of a config declared in code: a certain failure is an error unless an
 * acknowledgment names its code and path (then a warning quoting the reason); an
 * acknowledgment that matches no finding is a warning.
 */
export function inCode(
  result: ValidationResult,
  config: unknown,
  acknowledged: readonly Acknowledgment[],
  options: InCodeOptions = {},
): ValidationResult {
  // Nothing to judge: no warning may be a certain failure, and no acknowledgment is left unmatched.
  if (result.warnings.length === 0 && acknowledged.length === 0) return { errors: [...result.errors], warnings: [] };
  const used = new Set<Acknowledgment>();
  const errors = [...result.errors];
  const warnings: Issue[] = [];
  for (const w of result.warnings) {
    if (!isCertainFailure(w)) {
      warnings.push(w);
      continue;
    }
    if (options.onlyPossible?.has(w.code)) {
      warnings.push({ ...w, certainty: 'possible' });
      continue;
    }
    const path = namedPath(config, w.path);
    const ack = acknowledged.find((a) => a.code === w.code && a.path === path);
    if (ack) {
      used.add(ack);
      warnings.push({ ...w, message: `${w.message} (acknowledged: ${ack.reason})` });
      continue;
    }
    const hint = acknowledgmentHint(w.code, path);
    errors.push({ ...w, severity: 'error', hint: w.hint ? `${w.hint}; ${hint}` : hint });
  }
  for (const a of acknowledged) {
    if (used.has(a) || options.judgedElsewhere?.has(a.code)) continue;
    warnings.push({
      severity: 'warning',
      code: UNMATCHED_ACKNOWLEDGMENT,
      path: childPath('acknowledged', a.path),
      message: `acknowledgment of ${a.code} at ${a.path} matches no finding of this machine`,
      hint: 'remove it: the machine no longer fails there',
    });
  }
  return { errors, warnings };
}

/** A finding as a terminal line, saying whether it is certain: `error`, `warning (certain failure)` or `warning`. */
export function certaintyLabel(issue: Issue): string {
  if (issue.severity === 'error') return 'error';
  return isCertainFailure(issue) ? 'warning (certain failure)' : 'warning';
}

/**
 * What adopting a stored config acknowledges: each of its certain failures, once, so that
 * code declares the machine as it is and says where it is broken. Codes in `judgedElsewhere`
 * are left out: the caller judges them on the config resolved with its fragments.
 */
export function storedFailureAcknowledgments(
  config: unknown,
  result: ValidationResult,
  judgedElsewhere: ReadonlySet<string>,
): Acknowledgment[] {
  const out: Acknowledgment[] = [];
  const seen = new Set<string>();
  for (const w of result.warnings) {
    if (!isCertainFailure(w) || judgedElsewhere.has(w.code)) continue;
    const path = namedPath(config, w.path);
    const key = `${w.code}\u0000${path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ code: w.code, path, reason: `broken when adopted: ${w.message}` });
  }
  return out;
}
