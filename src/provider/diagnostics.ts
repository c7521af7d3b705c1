import { FleetformError, THIS_ADDRESS, errorMessage, withAddress } from '../domain/errors';
import type { PlanNote, PlanProblem } from '../engine/provider-core';
import { AttributePath, AttributePath_Step, Diagnostic, Diagnostic_Severity } from './protocol/generated/tfplugin6/tfplugin6_pb';

/**
 * Terraform points at the attribute a diagnostic names; fleetform's paths go deeper
 * (`config.modules.arm.version`), so the attribute is the path's first step and the
 * whole path leads the summary, as `fleetform plan` prints it.
 */
function attributeOf(path: string | undefined, attributes: ReadonlySet<string>): AttributePath | undefined {
  const first = path?.split(/[.[]/)[0];
  if (!first || !attributes.has(first)) return undefined;
  return attributePath(first);
}

/** The path of a top-level attribute. */
export function attributePath(name: string): AttributePath {
  return new AttributePath({ steps: [new AttributePath_Step({ selector: { case: 'attributeName', value: name } })] });
}

/**
 * The kinds' messages name fleetform's own commands; under Terraform the same fixes are
 * Terraform's commands of the same name and arguments (import, state mv, state rm, plan).
 */
export function asTerraformAdvice(text: string): string {
  return text.replace(/\bfleetform (import|state mv|state rm|plan)\b/g, 'terraform $1');
}

function diagnostic(
  severity: Diagnostic_Severity,
  summary: string,
  detail: string | undefined,
  path: string | undefined,
  attributes: ReadonlySet<string>,
  address: (() => string | undefined) | undefined,
): Diagnostic {
  const attribute = attributeOf(path, attributes);
  const said = asTerraformAdvice(summary);
  const named = detail?.includes(THIS_ADDRESS) ? address?.() : undefined;
  const hint = detail && named ? withAddress(detail, named) : detail;
  return new Diagnostic({
    severity,
    summary: path ? `${path}: ${said}` : said,
    detail: hint ? `hint: ${asTerraformAdvice(hint)}` : '',
    ...(attribute ? { attribute } : {}),
  });
}

/** Diagnostics of a resource type: errors and warnings at its attributes. */
export class Diagnostics {
  readonly list: Diagnostic[] = [];
  /** The address of the resource these are about, where a hint names it (see THIS_ADDRESS); looked up only then. */
  addressOf: (() => string | undefined) | undefined;
  constructor(private readonly attributes: ReadonlySet<string> = new Set()) {}

  get hasErrors(): boolean {
    return this.list.some((d) => d.severity === Diagnostic_Severity.ERROR);
  }

  error(summary: string, options: { path?: string; hint?: string } = {}): void {
    this.list.push(diagnostic(Diagnostic_Severity.ERROR, summary, options.hint, options.path, this.attributes, this.addressOf));
  }

  warning(summary: string, options: { path?: string; hint?: string } = {}): void {
    this.list.push(diagnostic(Diagnostic_Severity.WARNING, summary, options.hint, options.path, this.attributes, this.addressOf));
  }

  problems(problems: readonly PlanProblem[]): void {
    for (const p of problems) this.error(p.message, { path: p.path || undefined, ...(p.hint ? { hint: p.hint } : {}) });
  }

  /** Warnings only: informational notes are what `fleetform plan` adds beside its own renderer. */
  notes(notes: readonly PlanNote[]): void {
    for (const n of notes) if (n.level === 'warning') this.warning(n.message, n.path ? { path: n.path } : {});
  }

  /** A failure: a FleetformError with its path and hint, anything else by its message. */
  failure(err: unknown, context: string): void {
    if (err instanceof FleetformError)
      this.error(`${context}: ${err.message}`, { ...(err.path ? { path: err.path } : {}), ...(err.hint ? { hint: err.hint } : {}) });
    else this.error(`${context}: ${errorMessage(err)}`);
  }
}
