import { TerraformResource, TerraformStack } from './cdk';
import type { IConstruct } from 'constructs';
import type { Issue } from '../domain';
import type { AppReport } from './app-hook';
import { checksOf, errorIssueOf, type IssueSink, type KindChecks } from './checks';
import type { FleetIssue } from './fleet-issue';
import { isFinished } from './construction';
import { perGeneration } from './generation';
import { constructTypeOf, type ConstructType } from './construct-types';

/** Every problem of an app, and each construct's own. */
export interface AppAnalysis {
  /** In construct tree order. */
  readonly issues: readonly FleetIssue[];
  readonly byConstruct: ReadonlyMap<IConstruct, readonly FleetIssue[]>;
  /** The stack each issue's construct lives in. */
  readonly stackOf: ReadonlyMap<FleetIssue, IConstruct>;
  readonly report: AppReport;
}

/** The fleetform constructs of one stack, in tree order: by the checks their kind registered, and its resources. */
interface StackContents {
  readonly stack: TerraformStack;
  /** Kinds registered with one checks object are checked together (a model version is unique over both kinds of job). */
  readonly byChecks: Map<KindChecks<IConstruct>, IConstruct[]>;
  /** Constructs whose kind registered no checks. */
  readonly unchecked: Array<{ readonly construct: IConstruct; readonly kind: ConstructType }>;
  readonly resources: TerraformResource[];
}

/**
 * The stacks of an app in tree order, each with the fleetform constructs found below it
 * (what `stack.node.findAll()` finds, nested stacks included), in one walk of the tree.
 * A construct whose constructor threw is passed by: its error is the app's.
 */
function stacksOf(root: IConstruct): StackContents[] {
  const all: StackContents[] = [];
  const enclosing: StackContents[] = [];
  const visit = (c: IConstruct): void => {
    const kind = constructTypeOf(c);
    // No kind of fleetform construct is a stack: only the others are asked.
    const isStack = kind === undefined && TerraformStack.isStack(c);
    if (isStack) {
      const contents: StackContents = { stack: c, byChecks: new Map(), unchecked: [], resources: [] };
      all.push(contents);
      enclosing.push(contents);
    }
    if (kind !== undefined && isFinished(c)) {
      const resource = TerraformResource.isTerraformResource(c) ? c : undefined;
      const checks = checksOf(kind);
      // A kind checked with the construct that holds it (a machine's modules) has nothing to run here.
      const runsChecks = checks !== undefined && (checks.each !== undefined || typeof checks.acrossStack === 'function');
      if (resource !== undefined || checks === undefined || runsChecks) {
        for (let i = 0; i < enclosing.length; i++) addContent(enclosing[i] as StackContents, c, kind, resource, checks, runsChecks);
      }
    }
    const children = c.node.children;
    for (let i = 0; i < children.length; i++) visit(children[i] as IConstruct);
    if (isStack) enclosing.pop();
  };
  visit(root);
  return all;
}

/** Adds a construct (`resource` when it is one) to a stack's contents, under its kind's `checks` when they run here. */
function addContent(
  contents: StackContents,
  c: IConstruct,
  kind: ConstructType,
  resource: TerraformResource | undefined,
  checks: KindChecks<IConstruct> | undefined,
  runsChecks: boolean,
): void {
  if (resource !== undefined) contents.resources.push(resource);
  if (checks === undefined) {
    contents.unchecked.push({ construct: c, kind });
    return;
  }
  if (!runsChecks) return;
  const list = contents.byChecks.get(checks);
  if (list) list.push(c);
  else contents.byChecks.set(checks, [c]);
}

/** Collects issues against constructs, keeping the order they are found in. */
class Issues implements IssueSink {
  readonly byConstruct = new Map<IConstruct, FleetIssue[]>();

  add(construct: IConstruct, field: string, issue: Omit<Issue, 'path'>): void {
    const entry: FleetIssue = {
      severity: issue.severity,
      code: issue.code,
      constructPath: construct.node.path,
      field,
      message: issue.message,
      ...(issue.hint === undefined ? {} : { hint: issue.hint }),
    };
    const list = this.byConstruct.get(construct);
    if (list) list.push(entry);
    else this.byConstruct.set(construct, [entry]);
  }

  error(construct: IConstruct, field: string, code: string, message: string, hint?: string): void {
    this.add(construct, field, errorIssueOf(code, message, hint));
  }
}

/** Resources of one type whose logical ids (and so addresses) coincide. */
function checkAddresses(resources: readonly TerraformResource[], sink: IssueSink): void {
  // By type, then by logical id: a large app's addresses are never joined into strings.
  const seenByType = new Map<string, Map<string, TerraformResource>>();
  for (const resource of resources) {
    const type = resource.terraformResourceType;
    let seen = seenByType.get(type);
    if (seen === undefined) seenByType.set(type, (seen = new Map()));
    const first = seen.get(resource.friendlyUniqueId);
    if (first) {
      const address = `${type}.${resource.friendlyUniqueId}`;
      sink.error(
        resource,
        '',
        'address-collision',
        `its address ${address} is also the address of ${first.node.path}`,
        'an address joins the construct ids below the stack with "_"; a "/" inside one id becomes "--" and other characters Terraform does not allow become "_"; rename one of the constructs',
      );
    } else seen.set(resource.friendlyUniqueId, resource);
  }
}

function analyze(root: IConstruct): AppAnalysis {
  const stacks = stacksOf(root);
  const sink = new Issues();
  const resources: Record<string, number> = {};
  for (const contents of stacks) {
    for (const { terraformResourceType: type } of contents.resources) resources[type] = (resources[type] ?? 0) + 1;
    checkAddresses(contents.resources, sink);
    for (const { construct, kind } of contents.unchecked) {
      sink.error(
        construct,
        '',
        'unchecked-kind',
        `no checks are registered for constructs of kind ${kind}`,
        'the module defining the construct registers its checks with registerChecks',
      );
    }
    for (const [checks, constructs] of contents.byChecks) {
      if (typeof checks.acrossStack === 'function') checks.acrossStack(constructs, sink, contents.stack);
      if (checks.each) for (const c of constructs) checks.each(c, sink, contents.stack);
    }
  }
  const issues: FleetIssue[] = [];
  const stackOf = new Map<FleetIssue, IConstruct>();
  // Issues in construct tree order (a sound app has none: no walk then).
  if (sink.byConstruct.size > 0) {
    for (const c of root.node.findAll()) {
      const own = sink.byConstruct.get(c);
      if (!own) continue;
      const stack = TerraformStack.of(c);
      for (const issue of own) {
        issues.push(issue);
        stackOf.set(issue, stack);
      }
    }
  }
  return { issues, byConstruct: sink.byConstruct, stackOf, report: { issues, summary: { stacks: stacks.length, resources } } };
}

/**
 * Validates a whole app with the checks each kind of construct registered and returns
 * every problem at once, each attributed to the construct and field it concerns. Computed
 * once per change of the construct tree, so every construct's validation can consult it
 * cheaply.
 */
export const analyzeApp: (root: IConstruct) => AppAnalysis = perGeneration(analyze);
