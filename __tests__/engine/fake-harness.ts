import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyStack, type ApplyOutcome, type ApplyReporter } from '../../src/engine/apply/executor';
import { parseStackDocument } from '../../src/engine/desired/read-stacks';
import type { DesiredStack } from '../../src/engine/desired/stack';
import type { JsonObject } from '../../src/engine/json';
import { KindRegistry } from '../../src/engine/kind';
import type { ResourceChange } from '../../src/engine/plan-model';
import { planStack } from '../../src/engine/plan/planner';
import { LocalStateBackend } from '../../src/engine/state/local-backend';
import type { State } from '../../src/engine/state/schema';
import { fakeContext, noteKind, NoteStore } from './fake-kind';

/** What a reporter saw, in order: `start:ADDRESS`, `done:ADDRESS`, `failed:ADDRESS`, `skipped:ADDRESS`. */
export class RecordingReporter implements ApplyReporter {
  readonly events: string[] = [];
  start(c: ResourceChange): void {
    this.events.push(`start:${c.address}`);
  }
  done(c: ResourceChange): void {
    this.events.push(`done:${c.address}`);
  }
  failed(c: ResourceChange): void {
    this.events.push(`failed:${c.address}`);
  }
  skipped(c: ResourceChange): void {
    this.events.push(`skipped:${c.address}`);
  }
}

/** A stack of notes, as synthesized: `${fleetform_note.x.id}` references make dependencies. */
export function notesStack(notes: Record<string, JsonObject>): DesiredStack {
  return parseStackDocument('s', { resource: Object.keys(notes).length > 0 ? { fleetform_note: notes } : {} });
}

/** The fake kind, its store, a real local state backend in a scratch folder, and plan/apply through the engine's planner and executor. */
export class NotesWorld {
  readonly store = new NoteStore();
  readonly reporter = new RecordingReporter();
  readonly backend: LocalStateBackend;
  readonly kinds: KindRegistry;
  private constructor(
    readonly dir: string,
    replaceOrder: 'create-first' | 'delete-first',
  ) {
    this.backend = new LocalStateBackend(dir);
    this.kinds = new KindRegistry([noteKind(this.store, replaceOrder)]);
  }

  static async open(replaceOrder: 'create-first' | 'delete-first' = 'delete-first'): Promise<NotesWorld> {
    return new NotesWorld(await fs.mkdtemp(path.join(os.tmpdir(), 'ff-notes-')), replaceOrder);
  }

  close(): Promise<void> {
    return fs.rm(this.dir, { recursive: true, force: true });
  }

  state(): Promise<State> {
    return this.backend.read('s');
  }

  /** The state the last plan was made from: apply continues it, as the engine hands its plan's states to apply. */
  private planned: State | undefined;

  async plan(stack: DesiredStack, options: { parallelism?: number; destroy?: boolean } = {}): Promise<ResourceChange[]> {
    this.planned = await this.state();
    return planStack({
      stack,
      state: this.planned,
      kinds: this.kinds,
      ctx: fakeContext(),
      refresh: true,
      parallelism: options.parallelism ?? 4,
      destroy: options.destroy ?? false,
    });
  }

  async apply(stack: DesiredStack, changes: readonly ResourceChange[], parallelism = 4): Promise<ApplyOutcome> {
    return applyStack({
      stack,
      changes: changes.filter((c) => c.action !== 'no-op'),
      state: this.planned ?? (await this.state()),
      backend: this.backend,
      kinds: this.kinds,
      ctx: fakeContext(),
      parallelism,
      reporter: this.reporter,
    });
  }

  /** Plans and applies; the plan must have no problems. */
  async converge(stack: DesiredStack, parallelism = 4): Promise<ApplyOutcome> {
    const changes = await this.plan(stack, { parallelism });
    const problems = changes.flatMap((c) => c.problems);
    if (problems.length > 0) throw new Error(`unexpected plan problems: ${JSON.stringify(problems)}`);
    return this.apply(stack, changes, parallelism);
  }
}

export function byAddress(changes: readonly ResourceChange[], address: string): ResourceChange {
  const found = changes.find((c) => c.address === address);
  if (!found) throw new Error(`no change for ${address}`);
  return found;
}
