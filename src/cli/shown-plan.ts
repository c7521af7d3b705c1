/**
 * The plan `fleetform plan` last printed in a project, kept as a digest of its text: an
 * `apply --auto-approve` whose fresh plan is the same text a moment later prints its summary
 * only, so `plan && apply --auto-approve` shows the plan once.
 */
import * as crypto from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** How long a printed plan stands for the next apply's: the same run of commands, not a later day. */
const SHOWN_FOR_MS = 10 * 60 * 1000;

const digestOf = (text: string): string => crypto.createHash('sha256').update(text).digest('hex');
/** Kept beside the user's other temporary files, never in the project: a project whose state lives elsewhere gets no `.fleetform`. */
const fileOf = (cwd: string): string =>
  path.join(os.tmpdir(), `fleetform-shown-plans-${os.userInfo().uid}`, digestOf(path.resolve(cwd)).slice(0, 32));

/** Records that `text` (the plan without colors) was printed now. */
export async function rememberShownPlan(cwd: string, text: string): Promise<void> {
  try {
    await fs.mkdir(path.dirname(fileOf(cwd)), { recursive: true, mode: 0o700 });
    await fs.writeFile(fileOf(cwd), `${digestOf(text)}\n`, { mode: 0o600 });
  } catch {
    // Not remembered: the next apply prints its plan in full.
  }
}

/** Whether `text` is the plan printed last, within the last minutes; the record is used once. */
export async function wasJustShown(cwd: string, text: string, now = Date.now()): Promise<boolean> {
  try {
    const file = fileOf(cwd);
    const [content, stat] = await Promise.all([fs.readFile(file, 'utf8'), fs.stat(file)]);
    await fs.rm(file, { force: true });
    return content.trim() === digestOf(text) && now - stat.mtimeMs < SHOWN_FOR_MS;
  } catch {
    return false;
  }
}

/** Forgets the printed plan (e.g. after a plan that cannot be applied). */
export async function forgetShownPlan(cwd: string): Promise<void> {
  await fs.rm(fileOf(cwd), { force: true }).catch(() => undefined);
}
