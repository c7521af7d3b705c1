import { randomUUID } from 'node:crypto';
import { promises as fs, constants } from 'node:fs';
import { z } from 'zod';
import { InputError } from '../domain/errors';
import { type Plan, planValuesText, readPlanValuesText } from '../engine';

/** How a saved plan is made: the fix for any file that is not one. */
const MAKE_SAVED_PLAN = 'create one with `fleetform plan --out FILE`';

/** The saved plan's layout; 2 writes unknown values and secrets' digests as typed values. */
const LAYOUT = 2;

const SavedPlanSchema = z.object({
  fleetform_saved_plan: z.literal(LAYOUT),
  plan: z.object({ formatVersion: z.literal('1.0'), changes: z.array(z.looseObject({})), stacks: z.array(z.looseObject({})) }).loose(),
});

/** Writes a plan for a later `fleetform apply FILE` (secrets are already masked), mode 0600, atomically. */
export async function writeSavedPlan(file: string, plan: Plan): Promise<void> {
  const tmp = `${file}.${randomUUID()}.tmp`;
  const handle = await fs.open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    await handle.writeFile(planValuesText({ fleetform_saved_plan: LAYOUT, plan }), 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(tmp, file);
}

export async function readSavedPlan(file: string): Promise<Plan> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    throw new InputError(`cannot read saved plan ${file}`, { path: file, hint: MAKE_SAVED_PLAN });
  }
  let parsed: unknown;
  try {
    parsed = readPlanValuesText(text);
  } catch {
    throw new InputError(`${file} is not a fleetform saved plan (not JSON)`, { path: file, hint: MAKE_SAVED_PLAN });
  }
  if (parsed !== null && typeof parsed === 'object' && 'fleetform_saved_plan' in parsed && parsed.fleetform_saved_plan !== LAYOUT) {
    throw new InputError(`${file} was saved by another version of fleetform`, {
      path: file,
      hint: `make the plan again: ${MAKE_SAVED_PLAN.replace('create one', 'run')}`,
    });
  }
  const result = SavedPlanSchema.safeParse(parsed);
  if (!result.success) throw new InputError(`${file} is not a fleetform saved plan`, { path: file, hint: MAKE_SAVED_PLAN });
  return result.data.plan as unknown as Plan;
}
