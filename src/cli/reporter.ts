import type { ApplyReporter, ResourceChange } from '../engine';
import { describeError } from './describe-error';

const VERB: Record<string, [string, string]> = {
  create: ['Creating...', 'Creation complete'],
  update: ['Modifying...', 'Modifications complete'],
  replace: ['Replacing...', 'Replacement complete'],
  delete: ['Destroying...', 'Destruction complete'],
  forget: ['Forgetting...', 'Removed from state'],
  adopt: ['Adopting...', 'Adopted'],
  move: ['Moving...', 'Moved'],
};

/**
 * Progress of an apply, one line a resource start and end with elapsed time; with many
 * resources each line carries a `[done/total]` counter.
 */
export function consoleReporter(
  total: number,
  write: (line: string) => void,
): ApplyReporter & { summary(): { done: number; failed: number } } {
  let done = 0;
  let failed = 0;
  const counter = () => (total > 20 ? `[${done + failed}/${total}] ` : '');
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;
  return {
    start(c: ResourceChange) {
      if (total <= 20) write(`${c.address}: ${VERB[c.action]?.[0] ?? 'Working...'}`);
    },
    done(c: ResourceChange, ms: number, detail?: string) {
      done++;
      const extra = detail && !['created', 'updated', 'replaced', 'destroyed'].includes(detail) ? ` (${detail})` : '';
      write(`${counter()}${c.address}: ${VERB[c.action]?.[1] ?? 'Done'} after ${seconds(ms)}${extra}`);
    },
    failed(c: ResourceChange, error: unknown, ms: number) {
      failed++;
      write(`${counter()}${c.address}: failed after ${seconds(ms)}: ${describeError(error)}`);
    },
    skipped(c: ResourceChange, because: string) {
      write(`${c.address}: skipped because ${because} failed`);
    },
    summary: () => ({ done, failed }),
  };
}
