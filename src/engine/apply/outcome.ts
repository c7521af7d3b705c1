import type { DesiredStack } from '../desired/stack';
import type { KindContext, KindRegistry } from '../kind';
import type { ResourceChange } from '../plan-model';
import type { StateBackend } from '../state/backend';
import type { State } from '../state/schema';

/** Receives progress while a plan is applied. */
export interface ApplyReporter {
  start(change: ResourceChange): void;
  done(change: ResourceChange, elapsedMs: number, detail?: string): void;
  failed(change: ResourceChange, error: unknown, elapsedMs: number): void;
  skipped(change: ResourceChange, because: string): void;
}

/** What writing changes to one stack needs: the stack, its state, where state goes, and the service. */
export interface ApplyStackInput {
  readonly stack: DesiredStack;
  readonly changes: readonly ResourceChange[];
  readonly state: State;
  readonly backend: StateBackend;
  readonly kinds: KindRegistry;
  readonly ctx: KindContext;
  readonly parallelism: number;
  readonly reporter: ApplyReporter;
}
