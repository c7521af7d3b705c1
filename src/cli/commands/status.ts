import type { Command } from 'commander';
import { moduleCards } from '../../engine/kinds/module-cards';
import { openConnection } from '../connection';
import { projectBackend } from '../state-backend';

export function register(program: Command): void {
  program
    .command('status')
    .description('the module card of every machine module: policy, running version, registry latest')
    .option('--stack <name...>', 'only these stacks')
    .action(async (opts: { stack?: string[] }) => {
      const backend = await projectBackend(process.cwd());
      const names = opts.stack && opts.stack.length > 0 ? opts.stack : await backend.stacks();
      const states = await Promise.all(names.map((n) => backend.read(n)));
      const connection = await openConnection({ cwd: process.cwd(), env: process.env });
      try {
        const cards = await moduleCards(connection.client, states);
        if (cards.length === 0) {
          process.stdout.write('No machine modules are managed yet (run `fleetform apply`).\n');
          return;
        }
        const rows = [['STACK', 'MACHINE', 'MODULE', 'MODULE ID', 'POLICY', 'RUNS', 'LATEST', 'POLICY ADMITS LATEST']];
        for (const c of cards) {
          const unread = c.registryError !== undefined;
          rows.push([c.stack, c.machine, c.module, c.moduleId, c.policy, unread ? 'ERROR' : (c.running ?? '-'), unread ? 'ERROR' : (c.latest ?? '-'), unread ? 'ERROR' : c.admitsLatest ? 'yes' : 'no']);
        }
        const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
        for (const r of rows) process.stdout.write(`${r.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd()}\n`);
        // A registry that could not be read is an error, never shown as a module without versions.
        const failures = new Map(cards.flatMap((c) => (c.registryError ? [[c.moduleId, c.registryError] as const] : [])));
        for (const error of failures.values()) process.stderr.write(`error: ${error.format()}\n`);
        if (failures.size > 0) process.exitCode = 1;
      } finally {
        await connection.close();
      }
    });
}
