/**
 * A stack's own reconcile policy, declared in code: how a running `fleetform reconcile`
 * applies its changes (`auto`, `approve`, `plan-only`), what it does with drift (`heal`,
 * `warn`, `off`) and the windows in which its applies may start (`allow|deny:CRON:DURATION[:TIME_ZONE]`).
 * Windows may also be given per location: they hold for that location's machines only, on top
 * of the stack's. Unset fields follow the reconciler's flags. Synthesized into the stack
 * document's `//` block.
 */
import { z } from 'zod';

export const RECONCILE_DOCUMENT_KEY = 'fleetform_reconcile';

/** Windows of one location: the location as synthesized (a `${fleetform_location.x.id}` reference or an id). */
export const LocationWindowsSchema = z.strictObject({
  location: z.string().min(1),
  windows: z.array(z.string().min(1)).min(1),
});
export type LocationWindows = z.infer<typeof LocationWindowsSchema>;

export const ReconcilePolicySchema = z.strictObject({
  apply: z.enum(['auto', 'approve', 'plan-only']).optional(),
  drift: z.enum(['heal', 'warn', 'off']).optional(),
  windows: z.array(z.string().min(1)).optional(),
  locations: z.array(LocationWindowsSchema).optional(),
});
export type ReconcilePolicy = z.infer<typeof ReconcilePolicySchema>;
