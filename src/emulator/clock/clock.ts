/**
 * The emulator's clock: every timestamp the emulator writes and every job that moves by
 * itself reads it. It runs with a base clock (the wall clock, or one a test injects) plus
 * an offset, or stands frozen at one instant; stepping moves it forward either way. Its
 * state lives in the database, so every process serving the same data folder (and every
 * later start) reads the same time.
 */
import type { Db } from '../db/database';
import { stmt } from '../store/statements';

const OFFSET_KEY = 'clock_offset_ms';
const FROZEN_KEY = 'clock_frozen_at';

export interface ClockState {
  /** Milliseconds since the epoch. */
  readonly now: number;
  readonly frozen: boolean;
}

/** Why a clock change is refused (answered as INVALID_ARGUMENT). */
export class ClockError extends Error {}

export class EmulatorClock {
  constructor(
    private readonly db: Db,
    private readonly base: () => number,
  ) {}

  private read(key: string): number | undefined {
    const row = stmt<[string], { value: string }>(this.db, 'SELECT value FROM emulator_meta WHERE key = ?').get(key);
    return row === undefined ? undefined : Number(row.value);
  }

  private write(key: string, value: number | undefined): void {
    if (value === undefined) stmt<[string]>(this.db, 'DELETE FROM emulator_meta WHERE key = ?').run(key);
    else stmt<[string, string]>(this.db, 'INSERT OR REPLACE INTO emulator_meta (key, value) VALUES (?, ?)').run(key, String(value));
  }

  /** Milliseconds since the epoch, from one read of the database (every request asks it). */
  now(): number {
    const row = stmt<[string, string], { frozenAt: string | null; offset: string | null }>(
      this.db,
      'SELECT (SELECT value FROM emulator_meta WHERE key = ?) AS frozenAt, (SELECT value FROM emulator_meta WHERE key = ?) AS offset',
    ).get(FROZEN_KEY, OFFSET_KEY);
    const frozenAt = row?.frozenAt ?? null;
    return frozenAt !== null ? Number(frozenAt) : this.base() + Number(row?.offset ?? 0);
  }

  state(): ClockState {
    const frozenAt = this.read(FROZEN_KEY);
    return { now: frozenAt ?? this.now(), frozen: frozenAt !== undefined };
  }

  /** Stops the clock at the current instant (a frozen clock stays where it is). */
  freeze(): ClockState {
    this.db
      .transaction(() => {
        if (this.read(FROZEN_KEY) === undefined) this.write(FROZEN_KEY, this.now());
      })
      .immediate();
    return this.state();
  }

  /** Lets a frozen clock run again from the instant it stands at. */
  resume(): ClockState {
    this.db
      .transaction(() => {
        const frozenAt = this.read(FROZEN_KEY);
        if (frozenAt === undefined) return;
        this.write(OFFSET_KEY, frozenAt - this.base());
        this.write(FROZEN_KEY, undefined);
      })
      .immediate();
    return this.state();
  }

  /** Moves the clock forward by `ms` (a whole, non-negative number of milliseconds). */
  step(ms: number): ClockState {
    if (!Number.isSafeInteger(ms) || ms < 0) throw new ClockError(`the clock moves forward by whole milliseconds, not ${ms}`);
    this.db
      .transaction(() => {
        const frozenAt = this.read(FROZEN_KEY);
        if (frozenAt !== undefined) this.write(FROZEN_KEY, frozenAt + ms);
        else this.write(OFFSET_KEY, (this.read(OFFSET_KEY) ?? 0) + ms);
      })
      .immediate();
    return this.state();
  }
}
