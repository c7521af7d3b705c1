import { App, TerraformStack, Testing } from 'cdktf';
import type { IConstruct } from 'constructs';
import { analyzeApp, type FleetIssue } from '../../src/constructs';
import { unescapeTemplate } from '../../src/domain';

/** A fresh testing app and one stack in it. */
export function newStack(id = 'stack'): { app: App; stack: TerraformStack } {
  const app = Testing.app();
  return { app, stack: new TerraformStack(app, id) };
}

/** The synthesized JSON of a stack, validations included. */
export interface SynthDoc {
  provider?: { fleetform?: Array<Record<string, unknown>> };
  terraform?: { required_providers?: Record<string, unknown> };
  resource?: Record<string, Record<string, Record<string, unknown>>>;
}

export function synth(stack: TerraformStack): SynthDoc {
  return JSON.parse(Testing.synth(stack, true)) as SynthDoc;
}

/** One resource's attributes by type and logical id; fails when it is missing. */
export function resourceOf(doc: SynthDoc, type: string, logicalId: string): Record<string, unknown> {
  const r = doc.resource?.[type]?.[logicalId];
  if (!r) throw new Error(`no ${type}.${logicalId} in ${JSON.stringify(Object.keys(doc.resource?.[type] ?? {}))}`);
  return r;
}

/** The parsed `config` of a synthesized machine, as Terraform reads it (`$${` escapes as the literal `${`). */
export function machineConfig(
  doc: SynthDoc,
  logicalId: string,
): {
  components: Array<Record<string, unknown>>;
  services: Array<Record<string, unknown>>;
  modules: Array<Record<string, unknown>>;
} {
  const config = resourceOf(doc, 'fleetform_machine', logicalId).config;
  if (typeof config !== 'string') throw new Error('config is not a string');
  return JSON.parse(unescapeTemplate(config)) as ReturnType<typeof machineConfig>;
}

/** Errors of the app as `path field code` strings. */
export function errorsOf(scope: IConstruct): string[] {
  return issuesOf(scope, 'error');
}

/** Warnings of the app as `path field code` strings. */
export function warningsOf(scope: IConstruct): string[] {
  return issuesOf(scope, 'warning');
}

function issuesOf(scope: IConstruct, severity: FleetIssue['severity']): string[] {
  return analyzeApp(scope.node.root)
    .issues.filter((i) => i.severity === severity)
    .map((i) => `${i.constructPath} ${i.field} ${i.code}`);
}

/** The one issue of the app at a construct path and field. */
export function issueAt(scope: IConstruct, constructPath: string, field: string): FleetIssue {
  const found = analyzeApp(scope.node.root).issues.filter((i) => i.constructPath === constructPath && i.field === field);
  if (found.length !== 1) throw new Error(`expected one issue at ${constructPath} ${field}, found ${found.length}`);
  return found[0] as FleetIssue;
}
