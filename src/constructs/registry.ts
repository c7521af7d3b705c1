import { Annotations, AnnotationMetadataEntryType, TerraformStack } from './cdk';
import type { IConstruct, IValidation } from 'constructs';
import { analyzeApp } from './analysis';
import { installedAppHook, type AppHook } from './app-hook';
import { formatIssueForConstruct, type FleetIssue } from './fleet-issue';
import { finishConstruction } from './construction';
import { bumpGeneration } from './generation';

const stacksWithValidation = new WeakSet<IConstruct>();
const constructsWithValidation = new WeakSet<IConstruct>();

/** Adds a warning annotation once: validations run on every synth and must stay idempotent. */
function warnOnce(construct: IConstruct, issue: FleetIssue): void {
  const text = formatIssueForConstruct(issue);
  const known = construct.node.metadata.some((m) => m.type === AnnotationMetadataEntryType.WARN && m.data === text);
  if (!known) Annotations.of(construct).addWarning(text);
}

/**
 * The messages CDKTF shows for a construct: its own errors; its warnings become
 * annotations. Given only to the constructs that have issues (see StackValidation).
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
 * A stack's validation. CDKTF validates a stack's constructs in tree order, the stack
 * first: so this validation gives each construct of the stack that has issues its own
 * validation, which CDKTF then asks as it comes to it (a large app has hundreds of
 * thousands of constructs, nearly all without issues: no object or list each). It also
 * reports the errors of the app's other stacks: CDKTF validates and writes one stack after
 * the other, and this way the first stack to be synthesized already lists every problem of
 * the app, so a broken app writes no stack at all.
 */
class StackValidation implements IValidation {
  constructor(private readonly stack: IConstruct) {}

  validate(): string[] {
    const analysis = analyzeApp(this.stack.node.root);
    for (const [construct, own] of analysis.byConstruct) {
      const first = own[0];
      if (first === undefined || constructsWithValidation.has(construct) || analysis.stackOf.get(first) !== this.stack) continue;
      constructsWithValidation.add(construct);
      construct.node.addValidation(new ConstructValidation(construct));
    }
    return analysis.issues
      .filter((i) => i.severity === 'error' && analysis.stackOf.get(i) !== this.stack)
      .map((i) => `${i.constructPath}: ${formatIssueForConstruct(i)}`);
  }
}

/** The scope of the construct wired last, and that construct: a construct in either has a stack already wired. */
let lastWired: { scope: IConstruct | undefined; construct: IConstruct } | undefined;

/**
 * Gives the construct's stack its validation unless it has it; constructs come in runs of
 * siblings, so mostly without a lookup. True when the construct is in the scope of the
 * construct wired last, or is that construct's child: in the same stack and app.
 */
function wireStack(construct: IConstruct): boolean {
  const scope = construct.node.scope;
  const known = lastWired !== undefined && scope !== undefined && (scope === lastWired.scope || scope === lastWired.construct);
  if (!known) {
    const stack = TerraformStack.of(construct);
    if (!stacksWithValidation.has(stack)) {
      stacksWithValidation.add(stack);
      stack.node.addValidation(new StackValidation(stack));
    }
  }
  if (lastWired === undefined) lastWired = { scope, construct };
  else {
    lastWired.scope = scope;
    lastWired.construct = construct;
  }
  return known;
}

/** The hook that observed the app of the construct wired last. */
let lastHook: AppHook | undefined;

/**
 * Wires a new fleetform construct into validation: its stack's (once per stack), whose
 * validation gives the construct its own should it have issues, and the command line's
 * hook when one is installed.
 */
export function registerFleetConstruct(construct: IConstruct): void {
  finishConstruction(construct);
  bumpGeneration();
  const sameAppAsLast = wireStack(construct);
  const hook = installedAppHook();
  if (hook !== undefined && !(sameAppAsLast && hook === lastHook)) {
    const root = construct.node.root;
    hook.observe(root, () => analyzeApp(root).report);
  }
  lastHook = hook;
}
