import { Annotations, AnnotationMetadataEntryType, TerraformStack } from './cdk';
import type { IConstruct, IValidation } from 'constructs';
import { analyzeApp } from './analysis';
import { installedAppHook } from './app-hook';
import { formatIssueForConstruct, type FleetIssue } from './fleet-issue';
import { finishConstruction } from './construction';
import { bumpGeneration } from './generation';

const stacksWithValidation = new WeakSet<IConstruct>();

/** Adds a warning annotation once: validations run on every synth and must stay idempotent. */
function warnOnce(construct: IConstruct, issue: FleetIssue): void {
  const text = formatIssueForConstruct(issue);
  const known = construct.node.metadata.some((m) => m.type === AnnotationMetadataEntryType.WARN && m.data === text);
  if (!known) Annotations.of(construct).addWarning(text);
}

/**
 * The messages CDKTF shows for a construct: its own errors; its warnings become
 * annotations. One small object per construct (a large app has hundreds of thousands of
 * constructs, so no closure per construct).
 */
class ConstructValidation implements IValidation {
  constructor(private readonly construct: IConstruct) {}

  validate(): string[] {
    const own = analyzeApp(this.construct.node.root).byConstruct.get(this.construct);
    if (own === undefined) return [];
    const errors: string[] = [];
    for (const issue of own) {
      if (issue.severity === 'error') errors.push(formatIssueForConstruct(issue));
      else warnOnce(this.construct, issue);
    }
    return errors;
  }
}

/**
 * The errors of the app's other stacks, reported by each stack too: CDKTF validates and
 * writes one stack after the other, and this way the first stack to be synthesized
 * already lists every problem of the app, so a broken app writes no stack at all.
 */
class OtherStacksValidation implements IValidation {
  constructor(private readonly stack: IConstruct) {}

  validate(): string[] {
    const analysis = analyzeApp(this.stack.node.root);
    return analysis.issues
      .filter((i) => i.severity === 'error' && analysis.stackOf.get(i) !== this.stack)
      .map((i) => `${i.constructPath}: ${formatIssueForConstruct(i)}`);
  }
}

/**
 * Wires a new fleetform construct into validation: its own validation, its stack's
 * (once per stack), and the command line's hook when one is installed.
 */
export function registerFleetConstruct(construct: IConstruct): void {
  finishConstruction(construct);
  bumpGeneration();
  const stack = TerraformStack.of(construct);
  if (!stacksWithValidation.has(stack)) {
    stacksWithValidation.add(stack);
    stack.node.addValidation(new OtherStacksValidation(stack));
  }
  construct.node.addValidation(new ConstructValidation(construct));
  const hook = installedAppHook();
  if (hook !== undefined) {
    const root = construct.node.root;
    hook.observe(root, () => analyzeApp(root).report);
  }
}
