import { acknowledgedAttribute } from '../domain/certainty';
import type { IConstruct } from 'constructs';
import type { Issue } from '../domain';
import { hasOwnKeys } from '../domain/own-keys';
import { errorIssueOf, type IssueSink, type KindChecks } from './checks';
import { synthesizedConfigOf } from './config-json';
import { fragmentConfigKeys } from './fragment-imports';
import { perGeneration } from './generation';
import { checkMachineConfig, checkMachineNames } from './machine-checks';
import { assembleMachine } from './machine-config';
import type { IMachine } from './machine-parts';
import { deployedModels } from './package';
import { terraformLiterals } from './terraform-literal';

/** An issue a check found, against the construct and field it concerns. */
interface FoundIssue {
  readonly construct: IConstruct;
  readonly field: string;
  readonly issue: Omit<Issue, 'path'>;
}

/** Keeps what checks find, to hand to the app's analysis later. */
class FoundIssues implements IssueSink {
  found: FoundIssue[] | undefined;

  add(construct: IConstruct, field: string, issue: Omit<Issue, 'path'>): void {
    (this.found ??= []).push({ construct, field, issue });
  }

  error(construct: IConstruct, field: string, code: string, message: string, hint?: string): void {
    this.add(construct, field, errorIssueOf(code, message, hint));
  }
}

/** What a machine's synth and its checks take from its config. */
interface MachineSynthesis {
  /** The `fleetform_machine` attributes (shared: do not mutate). */
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly issues: readonly FoundIssue[];
}

const NO_ISSUES: readonly FoundIssue[] = [];

/**
 * Whether the construct's app runs no validation (`new App({ skipValidation: true })`):
 * CDKTF then asks no construct for its problems, so a machine's config is not checked at
 * synth (`fleetform plan` checks it before planning).
 */
function appSkipsValidation(construct: IConstruct): boolean {
  return Reflect.get(construct.node.root, 'skipValidation') === true;
}

/**
 * A machine's attributes as synthesized and the issues its config's checks find, once per
 * generation from one assembly of its config: CDKTF asks a machine for its attributes
 * before it validates the app, and a fleet of thousands of machines assembles and walks
 * each config once. Only the attributes and the issues stay (a large fleet keeps no copy
 * of every config document).
 */
export const machineSynthesis: (machine: IMachine) => MachineSynthesis = perGeneration((machine: IMachine) => {
  const assembled = assembleMachine(machine);
  const found = new FoundIssues();
  if (!appSkipsValidation(machine)) checkMachineConfig(machine, assembled, found);
  const { configJson, secretEnv, secrets } = synthesizedConfigOf(assembled, fragmentConfigKeys(machine));
  const attributes: Record<string, unknown> = { name: machine.name };
  if (machine.locationId !== undefined) attributes.location_id = machine.locationId;
  attributes.config = configJson;
  if (hasOwnKeys(secretEnv)) attributes.secret_env = { ...secretEnv };
  if (hasOwnKeys(secrets)) attributes.secrets = { ...secrets };
  const models = assembled.packageParts.length > 0 ? deployedModels(assembled.packageParts) : undefined;
  if (models) attributes.deploy_models = models;
  if (machine.healthGate !== undefined) attributes.health_gate = { ...machine.healthGate };
  if (machine.healthAnalysis !== undefined) attributes.health_analysis = structuredClone(machine.healthAnalysis);
  if (machine.acknowledgments !== undefined && machine.acknowledgments.length > 0)
    attributes.acknowledged = acknowledgedAttribute(machine.acknowledgments);
  return { attributes: terraformLiterals(attributes), issues: found.found ?? NO_ISSUES };
});

/** The checks of a machine: its name among the stack's machines, and its config with every part of it. */
export const machineChecks: KindChecks<IMachine> = {
  acrossStack: checkMachineNames,
  each: (machine, sink) => {
    for (const { construct, field, issue } of machineSynthesis(machine).issues) sink.add(construct, field, issue);
  },
};
