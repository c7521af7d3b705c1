import type { StateBackend } from '../state/backend';
import type { State } from '../state/schema';

/**
 * Saves a stack's state after every resource without writing it once per resource when
 * many finish together: saves are serialized and coalesced, and `flush` waits for the last.
 */
export class StateSaver {
  private running: Promise<void> | undefined;
  private dirty = false;
  private failure: unknown;

  constructor(
    private readonly backend: StateBackend,
    private readonly state: State,
  ) {}

  /** Requests a save of the current in-memory state. */
  save(): Promise<void> {
    this.dirty = true;
    if (!this.running) this.running = this.loop();
    return this.running;
  }

  private async loop(): Promise<void> {
    try {
      while (this.dirty) {
        this.dirty = false;
        this.state.serial += 1;
        await this.backend.write(this.state);
      }
    } catch (err) {
      this.failure = err;
      throw err;
    } finally {
      this.running = undefined;
    }
  }

  async flush(): Promise<void> {
    while (this.running) await this.running;
    if (this.failure) throw this.failure;
  }
}
