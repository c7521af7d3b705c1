import type { z } from 'zod';
import type { ServiceClient } from '../api/client';
import { FleetformError } from '../domain/errors';
import type { JsonObject } from './json';
import { attributesFromView, type KindDeclaration, type ViewOf } from './kind-declaration';
import type { PlanNote, PlanProblem } from './plan-notes';
import type { ResolvedMachineChange, ResourceChange } from './plan-model';
import type { State, StateEntry } from './state/schema';

/** Where resources are created: the stack's organization and default location. */
export interface KindContext {
  readonly client: ServiceClient;
  readonly organizationId: string;
  readonly locationId: string;
  /** Whether locationId is named by the provider (or the run's configured default) rather than being the organization's only location. */
  readonly locationNamed?: boolean;
  /** How many locations the stack being planned or applied creates in this run. */
  readonly creatingLocations?: number;
  /** Shares one read among every resource of a run (e.g. a registry module many machines use). */
  memo<T>(key: string, load: () => Promise<T>): Promise<T>;
  /** How long apply waits for a training job whose model a machine deploys; 0 or unset: not at all. */
  readonly trainingWaitMs?: number;
  /** Tells the person running apply what a long wait is waiting for (one line each time). */
  progress?(line: string): void;
}

export type { PlanNote, PlanProblem };

/** What the service holds now, as a kind sees it. */
export interface Observation<View extends JsonObject = JsonObject> {
  /** Comparable view, in the same shape as the desired view. */
  readonly view: View;
  /** Changes whenever the remote object changes: guards saved plans and concurrent edits. */
  readonly version: string;
  /** Read-only facts shown beside the resource (e.g. a training job's status). */
  readonly facts: Readonly<Record<string, string>>;
  /** What the kind worked out from the object for its own judge (not shown, not stored). */
  readonly kindData?: JsonObject;
  /** The attributes the service changes on its own (declared `observed`), as read now; null for one it has no value of. */
  readonly observed?: JsonObject;
}

/** The desired value of one resource, as its kind normalizes it. */
export interface DesiredValue<View extends JsonObject = JsonObject> {
  readonly view: View;
  /** Handler-owned data to keep in state once applied (e.g. module version pins). */
  readonly private: JsonObject;
  readonly notes: readonly PlanNote[];
  readonly problems: readonly PlanProblem[];
  /** What the kind worked out for its own judge (not shown, not stored). */
  readonly kindData?: JsonObject;
}

/** The desired value with the paths its declaration says hold secrets. */
export interface Desired extends DesiredValue {
  /** Paths (as rendered by diffJson) holding secrets: masked in plans, logs and state. */
  readonly sensitivePaths: readonly string[];
}

/** A difference between what exists and what is desired, as a kind's judge sees it. */
export interface JudgeInput {
  /** The current view (observed, else last applied), secrets masked. */
  readonly current: JsonObject;
  /** The desired view, secrets masked. */
  readonly desired: JsonObject;
  readonly observation: Observation | undefined;
  readonly prior: StateEntry;
  /** The declared replace-forcing attributes that differ: non-empty means the resource is replaced. */
  readonly replaceReasons: readonly string[];
  /** The `kindData` of the desired value. */
  readonly desiredData?: JsonObject;
}

/** What a kind adds to a change beyond its declaration: problems that stop it and notes. */
export interface Judgement {
  readonly problems: readonly PlanProblem[];
  readonly notes: readonly PlanNote[];
}

export interface Applied {
  readonly ids: Readonly<Record<string, string>>;
  readonly outputs: Readonly<Record<string, string>>;
  /**
   * The revision of the object's configuration this write made, when the service versions
   * it (a machine part's config: the time of the write, RFC 3339); a rollout gates each
   * machine on the revision it wrote. Not kept in state.
   */
  readonly revision?: string;
  /** How a plan found an object it adopts: made by an interrupted create, or kept by an earlier destroy. */
  readonly foundAs?: 'interrupted-create' | 'retained';
}

/** The fix for an import by an id the service does not know. */
export const IMPORT_ID_HINT = 'give the id the service assigned to the object (not its name)';

/**
 * One resource kind: observe / create / update / delete (and import), the way a
 * Crossplane external client or a Terraform provider resource is written. The engine
 * knows no kind; it plans and applies through this interface only.
 */
export interface ResourceKind<D extends KindDeclaration = KindDeclaration, View extends JsonObject = ViewOf<D>> {
  /** The synthesized resource type, e.g. `fleetform_machine` (the declaration's). */
  readonly type: string;
  /**
   * The kind's attributes and their facts: validation, replace reasons, masking, what the
   * service chooses, provider schema and docs come from it.
   */
  readonly declaration: D;
  /** Replacement order: `create-first` keeps the old object until the new one exists. */
  readonly replaceOrder: 'create-first' | 'delete-first';
  /**
   * Normalizes attributes the declaration's schema has already parsed (references
   * resolved, or unknown) into the view plan compares, with the kind's own checks.
   */
  desire(ctx: KindContext, attributes: z.output<D['schema']>, prior: StateEntry | undefined): Promise<DesiredValue<View>>;
  /**
   * For an object the plan creates: outputs that stand in for its own until it exists
   * (its id), recorded with its desired view so that resources referring to it are
   * checked at plan against it as declared. Kinds without it leave such references unknown.
   */
  standIn?(ctx: KindContext, view: View): Promise<Readonly<Record<string, string>>>;
  /** Reads the remote object into the view desire gives; undefined when it no longer exists. */
  observe(ctx: KindContext, entry: StateEntry): Promise<Observation<View> | undefined>;
  /** Problems and notes of a change beyond the declared replace reasons (e.g. an immutable field). */
  judge?(change: JudgeInput): Judgement;
  /** Creates the object. `checkpoint` records ids as soon as the remote object exists. */
  create(ctx: KindContext, desired: View, checkpoint: (ids: Applied) => Promise<void>): Promise<Applied>;
  /**
   * Updates in place, guarded by the version observed when planning (null when the plan
   * did not read the service): a remote change since then must fail, not be overwritten.
   */
  update(ctx: KindContext, entry: StateEntry, desired: View, plannedVersion: string | null): Promise<Applied>;
  /** Deletes; `pending` when deletion has started but finishes later (kept in state as deleting). */
  delete(ctx: KindContext, entry: StateEntry): Promise<'deleted' | 'pending'>;
  /** True when removing the resource from code should leave the remote object in place. */
  retainOnDelete(entry: StateEntry): boolean;
  /**
   * The attributes code would give for this view (import and drift in a Terraform state):
   * the inverse of `desire` as far as code's attributes go. `prior` is the attributes the
   * resource had before, when it had any (e.g. which env entries code marked secret).
   * Kinds whose view holds their attributes as they are leave it out: see attributesFromView.
   */
  attributesOf?(view: View, prior: JsonObject | undefined): JsonObject;
  /**
   * What names the object on the service, without secrets (e.g. a machine's location and
   * name), from a desired or applied view: recorded before each create so an interrupted
   * create can be found, and compared to tell a rename from a move. `label` is for people.
   */
  identity(view: JsonObject): { readonly key: JsonObject; readonly label: string } | undefined;
  /** The object a create with this identity made, skipping ids already managed; undefined when none. */
  findCreated(ctx: KindContext, key: JsonObject, managedIds: ReadonlySet<string>): Promise<Applied | undefined>;
  /**
   * For a kind whose objects outlive a destroy (retain_on_delete): the kept object that the
   * declared attributes name again, skipping ids already managed; undefined when none. A
   * declaration with no state entry takes it back into state rather than creating another.
   */
  findRetained?(ctx: KindContext, attributes: JsonObject, managedIds: ReadonlySet<string>): Promise<Applied | undefined>;
  /** Adopts an existing remote object by its id; undefined when the service has no object with that id. */
  importById(ctx: KindContext, id: string): Promise<Applied | undefined>;
}

/** The attributes code would give for a view of a kind: its own attributesOf, else the declared attributes the view holds. */
export function attributesOfView(kind: ResourceKind, view: JsonObject, prior: JsonObject | undefined): JsonObject {
  return kind.attributesOf ? kind.attributesOf(view, prior) : attributesFromView(kind.declaration, view);
}

/** A stack's plan as a look at it after its resources are planned gives it back. */
export interface StackReview {
  /** The changes, notes added where a change reaches past its own object. */
  readonly changes: readonly ResourceChange[];
  /** Objects the changes reach, each with its resolved change (the JSON plan's `resolved_machine_changes`). */
  readonly resolved: readonly ResolvedMachineChange[];
}

/**
 * A look at a stack's whole plan, once its resources are planned: what some changes do
 * beyond their own objects (a fragment's, to the machines importing it).
 */
export type ReviewStack = (ctx: KindContext, stack: string, state: State, changes: readonly ResourceChange[]) => Promise<StackReview>;

/** The kinds an engine run knows, by type, and the looks at a stack's plan they come with. */
export class KindRegistry {
  private readonly kinds = new Map<string, ResourceKind>();
  constructor(
    kinds: readonly ResourceKind[],
    private readonly reviews: readonly ReviewStack[] = [],
  ) {
    for (const k of kinds) this.kinds.set(k.type, k);
  }
  /** The stack's planned changes after each review looked at them. */
  async reviewStack(ctx: KindContext, stack: string, state: State, changes: readonly ResourceChange[]): Promise<StackReview> {
    let review: StackReview = { changes: [...changes], resolved: [] };
    for (const look of this.reviews) {
      const next = await look(ctx, stack, state, review.changes);
      review = { changes: next.changes, resolved: [...review.resolved, ...next.resolved] };
    }
    return review;
  }
  /** Every kind's declaration, in registration order. */
  declarations(): KindDeclaration[] {
    return [...this.kinds.values()].map((k) => k.declaration);
  }
  get(type: string): ResourceKind | undefined {
    return this.kinds.get(type);
  }
  /** The kind of a resource; an unknown type is an error naming the address and the known types. */
  require(type: string, address: string): ResourceKind {
    const kind = this.kinds.get(type);
    if (!kind)
      throw new FleetformError(`unknown resource type ${type}`, { path: address, hint: `fleetform manages: ${this.types().join(', ')}` });
    return kind;
  }
  types(): string[] {
    return [...this.kinds.keys()];
  }
}
