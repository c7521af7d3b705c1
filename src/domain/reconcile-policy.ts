/**
 * A stack's own reconcile policy, declared in code: how a running `fleetform reconcile`
 * applies its changes (`auto`, `approve`, `plan-only`), what it does with drift (`heal`,
 * `warn`, `off`) and the windows in which its applies may start (`allow|deny:CRON:DURATION[:TIME_ZONE]`).
 * Unset fields follow the reconciler's flags. Synthesized into the stack document's `//` block.
 */
import { z } from 'zod';

export const RECONCILE_DOCUMENT_KEY = 'fleetform_reconcile';

export const ReconcilePolicySchema = z.strictObject({
  apply: z.enum(['auto', 'approve', 'plan-only']).optional(),
  drift: z.enum(['heal', 'warn', 'off']).optional(),
  windows: z.array(z.string().min(1)).optional(),
});
export type ReconcilePolicy = z.infer<typeof ReconcilePolicySchema>;
