/**
 * The life of one call: ended by its deadline, by the caller's signal, or by its end.
 * Deadlines share one coarse timer (a wheel of slots {@link SLOT_MS} wide) rather than a
 * timer and an AbortController per call: a deadline fires at most one slot late, and the
 * timer runs only while some call has a deadline.
 */
import { Code, ConnectError } from '@connectrpc/connect';

/** Width of a deadline slot: how late a deadline may fire, at most. */
export const SLOT_MS = 20;

/** What an exchange in flight listens to: it aborts the request on {@link Cancellable.onCancel}. */
export interface Cancellable {
  readonly cancelled: boolean;
  /** Why the call ended early: the caller's reason or DEADLINE_EXCEEDED. */
  readonly reason: unknown;
  /** Called once when the call is cancelled; the exchange sets and clears it. */
  onCancel: ((reason: unknown) => void) | undefined;
}

/** One call's deadline and cancellation; {@link CallLife.finish} must be called when it ends. */
export class CallLife implements Cancellable {
  cancelled = false;
  reason: unknown = undefined;
  onCancel: ((reason: unknown) => void) | undefined = undefined;
  deadlinePassed = false;
  /** Its place in the wheel while its deadline is pending. */
  slot: CallLife[] | undefined = undefined;
  index = -1;
  private controller: AbortController | undefined = undefined;
  private readonly onOuterAbort: (() => void) | undefined;

  constructor(
    private readonly outer: AbortSignal | undefined,
    timeoutMs: number | undefined,
    private readonly wheel: DeadlineWheel,
  ) {
    if (outer === undefined) this.onOuterAbort = undefined;
    else if (outer.aborted) {
      this.onOuterAbort = undefined;
      this.cancel(outer.reason);
    } else {
      this.onOuterAbort = () => this.cancel(outer.reason);
      outer.addEventListener('abort', this.onOuterAbort);
    }
    if (timeoutMs !== undefined && !this.cancelled) wheel.add(this, performance.now() + timeoutMs);
  }

  /** An AbortSignal that follows this life (made on first use, for interceptors). */
  signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Ends the call early with `reason`; only the first reason counts. */
  cancel(reason: unknown): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.reason = reason;
    this.controller?.abort(reason);
    const listener = this.onCancel;
    this.onCancel = undefined;
    listener?.(reason);
  }

  /** Called by the wheel at the deadline. */
  expire(): void {
    if (this.cancelled) return;
    this.deadlinePassed = true;
    this.cancel(new ConnectError('the operation timed out', Code.DeadlineExceeded));
  }

  /** The error the call ends with: the deadline's when it passed, else `e` as a ConnectError. */
  failure(e: unknown): ConnectError {
    const error = ConnectError.from(this.deadlinePassed ? this.reason : e);
    if (!this.cancelled) this.cancel(error);
    return error;
  }

  /** Leaves the wheel and the caller's signal. */
  finish(): void {
    this.onCancel = undefined;
    if (this.slot !== undefined) this.wheel.remove(this);
    if (this.onOuterAbort !== undefined) this.outer?.removeEventListener('abort', this.onOuterAbort);
  }
}

/** Pending deadlines in slots of {@link SLOT_MS}, swept by one interval timer while any is pending. */
export class DeadlineWheel {
  private readonly slots = new Map<number, CallLife[]>();
  private pending = 0;
  private timer: NodeJS.Timeout | undefined = undefined;
  /** The last slot swept. */
  private swept = 0;

  add(life: CallLife, atMs: number): void {
    const n = Math.ceil(atMs / SLOT_MS);
    let slot = this.slots.get(n);
    if (slot === undefined) {
      slot = [];
      this.slots.set(n, slot);
    }
    life.slot = slot;
    life.index = slot.push(life) - 1;
    this.pending += 1;
    if (this.timer === undefined) {
      this.swept = Math.floor(performance.now() / SLOT_MS) - 1;
      this.timer = setInterval(() => this.sweep(), SLOT_MS);
    }
  }

  remove(life: CallLife): void {
    const slot = life.slot as CallLife[];
    const last = slot.pop() as CallLife;
    if (last !== life) {
      slot[life.index] = last;
      last.index = life.index;
    }
    life.slot = undefined;
    this.pending -= 1;
    if (this.pending === 0) this.stop();
  }

  private sweep(): void {
    const now = Math.floor(performance.now() / SLOT_MS);
    for (let n = this.swept + 1; n <= now; n++) {
      const slot = this.slots.get(n);
      if (slot === undefined) continue;
      this.slots.delete(n);
      this.pending -= slot.length;
      // Out of the wheel first: a call ended by another's expiry must not touch this slot.
      for (const life of slot) life.slot = undefined;
      for (const life of slot) life.expire();
    }
    this.swept = now;
    if (this.pending === 0) this.stop();
  }

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.slots.clear();
  }
}
