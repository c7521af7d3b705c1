/**
 * How many reads a plan keeps in flight, following the network: the limit starts at
 * `initial` (high enough that a small fleet sends all its reads in the first round trip)
 * and grows while the reads' latency stays near the lowest seen (more in flight then
 * means proportionally more done per second: the wait is the network's, not the
 * service's); it shrinks towards `floor` when latency climbs (the service queues) and
 * halves, down to one, when the service pushes back (RESOURCE_EXHAUSTED, UNAVAILABLE).
 * Growth doubles the limit per round trip until the first sign of congestion, then adds
 * one per round trip, as TCP's slow start and congestion avoidance do.
 */

/** How one read ended, as the limit sees it. */
export type ReadOutcome = 'ok' | 'overload' | 'error';

/** Bounds and thresholds of an {@link AdaptiveReadLimit}. */
export interface ReadLimitOptions {
  /** Where the limit starts; also the lowest it falls to on latency alone unless `floor` is given. */
  readonly initial: number;
  /** The lowest the limit falls to on latency alone (push-back may take it lower). Default `initial`. */
  readonly floor?: number;
  /** The most reads in flight, whatever the network. */
  readonly max: number;
  /** Latency above `tolerance` times the lowest seen counts as queueing. Default 2. */
  readonly tolerance?: number;
  /**
   * Milliseconds this process has been unable to take answers so far (its event loop
   * held up); a read's share of it is not counted in its latency. Default: none.
   */
  readonly ownDelayMs?: () => number;
  /** Milliseconds from a monotonic clock; default `performance.now`. */
  readonly now?: () => number;
}

/** What the limit did over a run, for reports and benchmarks. */
export interface ReadLimitStats {
  readonly limit: number;
  readonly peakLimit: number;
  readonly peakInFlight: number;
  readonly reads: number;
  readonly overloads: number;
  /** Mean latency of the successful reads, in milliseconds (0 before the first). */
  readonly meanLatencyMs: number;
  /** Times the limit came down because reads took longer than `tolerance` times the fastest. */
  readonly slowdowns: number;
}

export class AdaptiveReadLimit {
  private current: number;
  private readonly floor: number;
  private readonly max: number;
  private readonly tolerance: number;
  private readonly ownDelayMs: () => number;
  private readonly now: () => number;
  private slowStart = true;
  private minLatencyMs = Number.POSITIVE_INFINITY;
  /** Successful reads since the limit last changed: one round trip's worth grows it. */
  private sinceChange = 0;
  private queueing = 0;
  private inFlight = 0;
  private peakInFlight = 0;
  private peakLimit: number;
  private reads = 0;
  private overloads = 0;
  private okReads = 0;
  private slowdowns = 0;
  private okLatencyMs = 0;

  constructor(options: ReadLimitOptions) {
    const initial = Math.max(1, Math.floor(options.initial));
    this.max = Math.max(1, Math.floor(options.max));
    this.floor = Math.min(this.max, Math.max(1, Math.floor(options.floor ?? initial)));
    this.tolerance = options.tolerance ?? 2;
    this.ownDelayMs = options.ownDelayMs ?? (() => 0);
    this.now = options.now ?? (() => performance.now());
    this.current = Math.min(this.max, Math.max(this.floor, initial));
    this.peakLimit = this.current;
  }

  /** Reads allowed in flight now. */
  get limit(): number {
    return this.current;
  }

  /** Runs one read under the limit's accounting (the caller keeps at most `limit` running). */
  async measure<T>(read: () => Promise<T>, classify: (err: unknown) => ReadOutcome): Promise<T> {
    const started = this.now();
    const ownDelayBefore = this.ownDelayMs();
    const finish = (outcome: ReadOutcome) => this.record(this.now() - started, outcome, this.ownDelayMs() - ownDelayBefore);
    this.inFlight++;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
    try {
      const value = await read();
      finish('ok');
      return value;
    } catch (err) {
      finish(classify(err));
      throw err;
    } finally {
      this.inFlight--;
    }
  }

  /**
   * Takes one read's latency and outcome into account; `ownDelayMs` is the part of the
   * latency this process's loop was held up, which does not make a read slow (the
   * fastest read seen, the yardstick, is taken as measured).
   */
  record(latencyMs: number, outcome: ReadOutcome, ownDelayMs = 0): void {
    this.reads++;
    if (outcome === 'overload') {
      this.overloads++;
      this.slowStart = false;
      this.set(Math.max(1, Math.floor(this.current / 2)));
      return;
    }
    if (outcome === 'error') return;
    this.okReads++;
    this.okLatencyMs += latencyMs;
    this.minLatencyMs = Math.min(this.minLatencyMs, latencyMs);
    if (latencyMs - ownDelayMs > this.minLatencyMs * this.tolerance) {
      // Several slow reads in one round trip: the service is queueing, back off a little.
      this.queueing++;
      if (this.queueing >= Math.max(2, this.current / 4)) {
        this.slowStart = false;
        this.slowdowns++;
        // Down towards the floor, never up to it (push-back may have taken the limit lower).
        this.set(Math.min(this.current, Math.max(this.floor, Math.floor(this.current * 0.9))));
      }
      return;
    }
    if (this.slowStart) {
      this.set(Math.min(this.max, this.current + 1), false);
      return;
    }
    this.sinceChange++;
    if (this.sinceChange >= this.current) this.set(Math.min(this.max, this.current + 1));
  }

  stats(): ReadLimitStats {
    return {
      limit: this.current,
      peakLimit: this.peakLimit,
      peakInFlight: this.peakInFlight,
      reads: this.reads,
      overloads: this.overloads,
      meanLatencyMs: this.okReads > 0 ? this.okLatencyMs / this.okReads : 0,
      slowdowns: this.slowdowns,
    };
  }

  private set(limit: number, resetWindow = true): void {
    this.current = limit;
    this.peakLimit = Math.max(this.peakLimit, limit);
    if (resetWindow) {
      this.sinceChange = 0;
      this.queueing = 0;
    }
  }
}
