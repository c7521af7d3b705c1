import type { StateBackend } from '../state/backend';
import type { State, StateEntry } from '../state/schema';

/**
 * Keeps a stack's state durable during apply: each resource's new entry is recorded
 * as soon as it exists (entries finishing together share one journal write), and
 * `flush` writes the whole document once at the end.
 */
export class StateSaver {
  private running: Promise<void> | undefined;
  private pending = new Map<string, StateEntry | null>();
  private failure: unknown;

  constructor(
    private readonly backend: StateBackend,
    private readonly state: State,
  ) {}

  /** Sets (or, with null, removes) an entry and resolves once it is durable. */
  record(address: string, entry: StateEntry | null): Promise<void> {
    return this.recordAll(new Map([[address, entry]]));
  }

  /** Sets or removes several entries in one journal write: a crash keeps all of them or none. */
  async recordAll(entries: ReadonlyMap<string, StateEntry | null>): Promise<void> {
    for (const [address, entry] of entries) {
      if (entry) this.state.resources[address] = entry;
      else delete this.state.resources[address];
      this.pending.set(address, entry);
    }
    for (;;) {
      if (!this.running) this.running = this.loop();
      const run = this.running;
      await run;
      if (![...entries.keys()].some((a) => this.pending.has(a)) || this.failure) break;
    }
    if (this.failure) throw this.failure;
  }

  private async loop(): Promise<void> {
    try {
      while (this.pending.size > 0) {
        const batch = this.pending;
        this.pending = new Map();
        this.state.serial += 1;
        await this.backend.record(this.state, batch);
      }
    } catch (err) {
      this.failure = err;
    } finally {
      this.running = undefined;
    }
  }

  /** Waits for recorded entries, then writes the whole state (folding the journal in). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
    if (this.failure) throw this.failure;
    this.state.serial += 1;
    await this.backend.write(this.state);
  }
}
