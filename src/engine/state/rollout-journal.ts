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
import { FragmentRolloutTargetSchema, RolloutPolicySchema, rolloutJournalKey } from '../../domain/rollout';
import { StateEntrySchema } from './schema';
import { JOURNAL_STATUSES, JournalPacingFields } from './rollout-journal-pacing';

const MachineRecordSchema = z.object({
  address: z.string(),
  name: z.string(),
  part_id: z.string(),
  /** The revision its config had before; in a fragment's rollout, the version its import goes back to (a tag, or the old revision). */
  baseline_revision: z.string(),
  written_revision: z.string(),
  /** `written`: waiting at its gate; `healthy`: passed; `failed`; `rolled back`. */
  result: z.enum(['written', 'healthy', 'failed', 'rolled back', 'left']),
  prior: StateEntrySchema,
});

/** One analysis measurement of a wave: its result, the values it compared and why. */
const JournalMeasurementSchema = z.object({
  wave: z.number().int().positive(),
  analysis: z.string(),
  at: z.string(),
  result: z.enum(['pass', 'fail', 'inconclusive']),
  value: z.number().optional(),
  baseline: z.number().optional(),
  machines: z.array(z.object({ machine: z.string(), value: z.number().optional() })),
  why: z.string(),
});
export type JournalMeasurement = z.infer<typeof JournalMeasurementSchema>;

export const RolloutJournalSchema = z.object({
  format: z.literal(1),
  stack: z.string(),
  /**
   * `running` until it completes, stops or is aborted; a journal left `running` is resumed.
   * `paused`: held by a pause step or its schedule's stop until released (`rollout resume`);
   * `waiting`: its schedule's start is ahead (an apply that did not wait). Both are resumed too.
   */
  status: z.enum(JOURNAL_STATUSES),
  started_at: z.string(),
  updated_at: z.string(),
  /** The wave it is in, 1-based. */
  wave: z.number().int().positive(),
  plan: z.object({
    stack: z.string(),
    policy: RolloutPolicySchema,
    waves: z.array(
      z.object({
        rule: z.string(),
        machines: z.array(z.object({ address: z.string(), name: z.string(), follows: z.string().optional() })),
        /** The index of the policy wave it came from (its rate and the pause steps before it follow from it). */
        from: z.number().int().nonnegative().optional(),
      }),
    ),
    /** A fragment's rollout: the fragment, the revisions it goes from and to, and the tags that move at the end. */
    fragment: FragmentRolloutTargetSchema.optional(),
  }),
  machines: z.array(MachineRecordSchema),
  reason: z.string().optional(),
  ...JournalPacingFields,
  /** Each analysis measurement as it came, by wave. */
  analysis: z.array(JournalMeasurementSchema).optional(),
});
export type RolloutJournal = z.infer<typeof RolloutJournalSchema>;
export type JournalMachine = z.infer<typeof MachineRecordSchema>;

/** Where journals are kept: one per stack, and one per fragment rollout (by its key, see rolloutJournalKey). */
export interface RolloutJournalStore {
  read(key: string): Promise<RolloutJournal | undefined>;
  /** The stack's journals: its own rollout's, then its fragments' rollouts' by name. */
  list(stack: string): Promise<RolloutJournal[]>;
  write(journal: RolloutJournal): Promise<void>;
}

/** Journals as files `<dir>/<stack>.rollout.json`, written atomically (temporary file, fsync, rename). */
export function fileJournalStore(dir: string): RolloutJournalStore {
  const file = (stack: string): string => path.join(dir, `${stack}.rollout.json`);
  const store: RolloutJournalStore = {
    async read(stack) {
      let text: string;
      try {
        text = await fs.readFile(file(stack), 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
      const parsed = RolloutJournalSchema.safeParse(JSON.parse(text));
      if (!parsed.success)
        throw new FleetformError(`the rollout journal of stack ${stack} is not readable`, {
          path: file(stack),
          hint: 'move it away to start the rollout afresh',
        });
      return parsed.data;
    },
    async list(stack) {
      let names: string[];
      try {
        names = await fs.readdir(dir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw err;
      }
      const keys = names
        .filter((n) => n.endsWith('.rollout.json'))
        .map((n) => n.slice(0, -'.rollout.json'.length))
        .filter((k) => k === stack || k.startsWith(`${stack}~`))
        .sort();
      const found = await Promise.all(keys.map((k) => store.read(k)));
      return found.filter((j): j is RolloutJournal => j !== undefined && j.stack === stack);
    },
    async write(journal) {
      await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      const target = file(rolloutJournalKey(journal.stack, journal.plan.policy));
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
  return store;
}

/** A store that keeps journals in memory (a run without a project folder). */
export function memoryJournalStore(): RolloutJournalStore {
  const journals = new Map<string, RolloutJournal>();
  return {
    read: (key) => Promise.resolve(journals.get(key)),
    list: (stack) => Promise.resolve([...journals.values()].filter((j) => j.stack === stack)),
    write: (journal) => {
      journals.set(rolloutJournalKey(journal.stack, journal.plan.policy), structuredClone(journal));
      return Promise.resolve();
    },
  };
}
