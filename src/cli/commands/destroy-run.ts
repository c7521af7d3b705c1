/** What `fleetform destroy` does when it runs, loaded then; its name, flags and help are in destroy.ts. */
import type { AppRunner } from '../app-runner';
import type { EngineCommandOptions } from '../engine-options';
import { withWorkspace } from '../workspace';
import { reviewAndApply } from './apply-plan';

export type DestroyOptions = EngineCommandOptions & { autoApprove?: boolean };

/** `fleetform destroy`: plans the deletion of everything the stacks manage and applies it once approved. */
export async function runDestroy(opts: DestroyOptions, apps: AppRunner): Promise<void> {
  await withWorkspace(opts, apps, async (ws) => {
    const release = await ws.engine.lock(
      ws.stacks.map((s) => s.name),
      'destroy',
    );
    try {
      const { plan, states } = await ws.engine.plan(ws.stacks, { refresh: true, destroy: true });
      await reviewAndApply(ws, plan, states, {
        autoApprove: Boolean(opts.autoApprove),
        saved: false,
        verb: 'destroy all these resources',
      });
    } finally {
      await release();
    }
  });
}
