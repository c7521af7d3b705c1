/** What `fleetform import` does when it runs, loaded then; its name, flags and help are in import.ts. */
import type { AppRunner } from '../app-runner';
import { FleetformError } from '../../domain/errors';
import type { EngineCommandOptions } from '../engine-options';
import { withWorkspace } from '../workspace';

/** `fleetform import ADDRESS ID`: adopts an existing object of the service at a declared address. */
export async function runImport(address: string, id: string, opts: EngineCommandOptions, apps: AppRunner): Promise<void> {
  await withWorkspace(opts, apps, async (ws) => {
    const stacks = ws.stacks.filter((s) => s.resources.some((r) => r.address === address));
    if (stacks.length !== 1) {
      throw new FleetformError(stacks.length === 0 ? `no stack declares ${address}` : `${address} is declared in several stacks`, {
        path: address,
        hint: stacks.length === 0 ? 'declare it in the app first, then import' : 'choose one with --stack',
      });
    }
    const stack = stacks[0];
    if (!stack) return;
    const release = await ws.engine.lock([stack.name], 'import');
    try {
      await ws.engine.importResource(stack, address, id);
    } finally {
      await release();
    }
    process.stdout.write(
      `Imported ${id} as ${address} in stack ${stack.name}. Run \`fleetform plan\` to see how it differs from the configuration.\n`,
    );
  });
}
