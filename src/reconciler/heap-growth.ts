/**
 * How far the reconciler's heap grows past what it holds before it is collected. By
 * default V8 lets the old generation reach up to four times the bytes that survived the
 * last full collection; a full plan of a large fleet holds its state and stacks while each
 * resource's passing values (the part read, its config decoded, the masked views, the
 * diffs) are promoted across their read's round trip, so the default peak is about four
 * times the plan's live set. A long-running process that plans whole fleets trades a few
 * more collections for a peak near what it holds.
 */
import { setFlagsFromString } from 'node:v8';

/** The old generation may grow by this share of what survived the last full collection before the next. */
export const RECONCILER_HEAP_GROWING_PERCENT = 50;

/** V8's options that set the heap's growth or size: given any, the user's choice stands. */
const HEAP_OPTIONS = /--(heap[-_]growing[-_]percent|max[-_]old[-_]space[-_]size|max[-_]heap[-_]size)\b/;

/**
 * The V8 flag that bounds the heap's growth, or undefined when the process was started
 * with its own heap option (in its arguments or NODE_OPTIONS).
 */
export function heapGrowthFlag(execArgv: readonly string[], nodeOptions: string | undefined): string | undefined {
  if (execArgv.some((a) => HEAP_OPTIONS.test(a)) || HEAP_OPTIONS.test(nodeOptions ?? '')) return undefined;
  return `--heap-growing-percent=${RECONCILER_HEAP_GROWING_PERCENT}`;
}

/** Bounds this process's heap growth for the reconciler (see {@link heapGrowthFlag}); returns the flag set, if any. */
export function boundHeapGrowth(): string | undefined {
  const flag = heapGrowthFlag(process.execArgv, process.env.NODE_OPTIONS);
  if (flag) setFlagsFromString(flag);
  return flag;
}
