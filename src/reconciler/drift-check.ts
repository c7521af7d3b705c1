/**
 * The drift check between full plans. While the commit stays and nothing was applied since
 * the last full plan, a new plan could only differ where the service changed. So a check
 * reads each managed object once and compares the version the service gives it (it changes
 * at every write: a part's `last_updated`, a fragment's revision) with the one that plan
 * observed: nothing is synthesized, desired or diffed, and the state is not read again (an
 * apply by anyone writes the objects it changes, which moves their versions). The objects
 * whose versions moved, or that vanished or came back, are planned alone (a targeted plan).
 * The reads are spread over a share of the interval, slice by slice, rather than sent at once.
 */
import { type DesiredStack, type Engine, type KindRegistry, mapLimited, type Plan, type State } from '../engine';
import { VERSION_READERS } from './version-readers';

/** One managed object as the full plan observed it. */
interface ObjectMark {
  readonly stack: string;
  /** Its address in state. */
  readonly address: string;
  /** The version observed; null when the object did not exist. */
  readonly version: string | null;
}

/** What a full plan found, for the checks that follow it. */
export interface CheckBaseline {
  /** The revision of the code planned. */
  readonly revision: string;
  /** When the plan was made (epoch ms). */
  readonly at: number;
  /** Each stack's state as planned: what the objects are read by. */
  readonly states: ReadonlyMap<string, State>;
  readonly objects: readonly ObjectMark[];
}

/** What the check reads through: the engine's kinds. */
export interface CheckReaders {
  readonly kinds: KindRegistry;
}

/**
 * The baseline of a full plan; undefined when a check could not stand for the next plan
 * (an interrupted create is settled by a plan only).
 */
export function baselineOf(revision: string, plan: Plan, states: ReadonlyMap<string, State>, at: number): CheckBaseline | undefined {
  const objects: ObjectMark[] = [];
  for (const [name, state] of states) {
    for (const entry of Object.values(state.resources)) if (entry.status === 'creating') return undefined;
    for (const c of plan.changes) {
      if (c.stack !== name) continue;
      const address = c.movedFrom ?? c.address;
      if (state.resources[address]) objects.push({ stack: name, address, version: c.observedVersion });
    }
  }
  return { revision, at, states: new Map(states), objects };
}

export type CheckResult =
  /** Every object is as the full plan observed it. */
  | { readonly outcome: 'same'; readonly read: number }
  /** These objects (state addresses) changed on the service: a plan of them says how. */
  | { readonly outcome: 'changed'; readonly read: number; readonly addresses: readonly string[] }
  /** Something more urgent came (a commit, a trigger, a stop). */
  | { readonly outcome: 'interrupted'; readonly read: number };

export interface CheckInput {
  readonly baseline: CheckBaseline;
  readonly readers: CheckReaders;
  readonly engine: Engine;
  readonly stacks: readonly DesiredStack[];
  /** How long the reads may take (0: all at once); each slice of reads starts a slice time after the last. */
  readonly spreadMs: number;
  /** Reads in flight at most within a slice. */
  readonly parallelism: number;
  /** Waits (returning early when interrupted). */
  readonly wait: (ms: number) => Promise<void>;
  /** Whether to give up the check for something more urgent (asked between slices). */
  readonly interrupted: () => Promise<boolean>;
  readonly now: () => number;
}

/** How often a spread check sends its next slice of reads. */
export const SLICE_MS = 1000;

/** Reads every object of the baseline, slice by slice, and says whether any changed. */
export async function checkDrift(input: CheckInput): Promise<CheckResult> {
  const { baseline, readers, engine } = input;
  // The state is not read again: an apply by anyone writes the objects it changes, which moves their versions.
  const states = baseline.states;
  const contexts = new Map(await Promise.all(input.stacks.map(async (s) => [s.name, await engine.context(s.provider)] as const)));
  const objects = baseline.objects;
  const slices = input.spreadMs > 0 ? Math.max(1, Math.floor(input.spreadMs / SLICE_MS)) : 1;
  const perSlice = Math.ceil(objects.length / slices);
  let read = 0;
  for (let from = 0; from < objects.length; from += perSlice) {
    if (from > 0) {
      if (await input.interrupted()) return { outcome: 'interrupted', read };
    }
    const sliceStarted = input.now();
    const slice = objects.slice(from, from + perSlice);
    const moved = await mapLimited(slice, input.parallelism, async (mark) => {
      const entry = states.get(mark.stack)?.resources[mark.address];
      const ctx = contexts.get(mark.stack);
      if (!entry || !ctx) return mark.address;
      const version = mark.version === null ? undefined : await VERSION_READERS.get(entry.type)?.(ctx, entry);
      const seen = version ?? (await readers.kinds.require(entry.type, mark.address).observe(ctx, entry))?.version ?? null;
      return seen === mark.version ? undefined : mark.address;
    });
    read += slice.length;
    const addresses = moved.filter((a): a is string => a !== undefined);
    if (addresses.length > 0) return { outcome: 'changed', read, addresses };
    if (from + perSlice < objects.length) await input.wait(sliceStarted + SLICE_MS - input.now());
  }
  return { outcome: 'same', read };
}
