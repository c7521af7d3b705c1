/**
 * A rollout's journal: where it stands (the wave it is in), and for every machine it wrote,
 * the part, the revision it had before (its baseline, whose config the part history keeps)
 * and the revision the rollout wrote, with the state entry to put back. A killed apply
 * resumes from it; `fleetform rollout abort` rolls back from it. It holds no config, so no
 * secret.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { FleetformError } from '../../domain/errors';
import { RolloutPolicySchema } from '../../domain/rollout';
import { StateEntrySchema } from '../state/schema';

const MachineRecordSchema = z.object({
  address: z.string(),
  name: z.string(),
  part_id: z.string(),
  baseline_revision: z.string(),
  written_revision: z.string(),
  /** `written`: waiting at its gate; `healthy`: passed; `failed`; `rolled back`. */
  result: z.enum(['written', 'healthy', 'failed', 'rolled back', 'left']),
  prior: StateEntrySchema,
});

export const RolloutJournalSchema = z.object({
  format: z.literal(1),
  stack: z.string(),
  /** `running` until it completes, stops or is aborted; a journal left `running` is resumed. */
  status: z.enum(['running', 'completed', 'stopped', 'aborted']),
  started_at: z.string(),
  updated_at: z.string(),
  /** The wave it is in, 1-based. */
  wave: z.number().int().positive(),
  plan: z.object({
    stack: z.string(),
    policy: RolloutPolicySchema,
    waves: z.array(z.object({ rule: z.string(), machines: z.array(z.object({ address: z.string(), name: z.string() })) })),
  }),
  machines: z.array(MachineRecordSchema),
  reason: z.string().optional(),
});
export type RolloutJournal = z.infer<typeof RolloutJournalSchema>;
export type JournalMachine = z.infer<typeof MachineRecordSchema>;

/** Where journals are kept: one per stack. */
export interface RolloutJournalStore {
  read(stack: string): Promise<RolloutJournal | undefined>;
  write(journal: RolloutJournal): Promise<void>;
}

/** Journals as files `<dir>/<stack>.rollout.json`, written atomically (temporary file, fsync, rename). */
export function fileJournalStore(dir: string): RolloutJournalStore {
  const file = (stack: string): string => path.join(dir, `${stack}.rollout.json`);
  return {
    async read(stack) {
      let text: string;
      try {
        text = await fs.readFile(file(stack), 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
      const parsed = RolloutJournalSchema.safeParse(JSON.parse(text));
      if (!parsed.success) throw new FleetformError(`the rollout journal of stack ${stack} is not readable`, { path: file(stack), hint: 'move it away to start the rollout afresh' });
      return parsed.data;
    },
    async write(journal) {
      await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      const target = file(journal.stack);
      const tmp = `${target}.${process.pid}.tmp`;
      const handle = await fs.open(tmp, 'w', 0o600);
      try {
        await handle.writeFile(JSON.stringify(journal), 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.rename(tmp, target);
    },
  };
}

/** A store that keeps journals in memory (a run without a project folder). */
export function memoryJournalStore(): RolloutJournalStore {
  const journals = new Map<string, RolloutJournal>();
  return {
    read: (stack) => Promise.resolve(journals.get(stack)),
    write: (journal) => {
      journals.set(journal.stack, structuredClone(journal));
      return Promise.resolve();
    },
  };
}
