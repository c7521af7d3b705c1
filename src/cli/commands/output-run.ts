/** What `fleetform output` does when it runs, loaded then; its name, flags and help are in output.ts. */
import { FleetformError } from '../../domain/errors';
import { formatOutputs, type StateOutput } from '../../engine';
import { projectBackend } from '../state-backend';

export interface OutputOptions {
  json?: boolean;
  stack?: string[];
}

/** The outputs kept in state by the last apply, by stack. */
async function keptOutputs(only: readonly string[] | undefined): Promise<Map<string, Record<string, StateOutput>>> {
  const backend = await projectBackend(process.cwd());
  const names = only && only.length > 0 ? only : await backend.stacks();
  const found = new Map<string, Record<string, StateOutput>>();
  for (const name of names) found.set(name, (await backend.read(name)).outputs ?? {});
  return found;
}

/** What `--json` prints of one output: its value (null when sensitive or unknown) and both flags. */
function jsonOf(o: StateOutput): { value: unknown; sensitive: boolean; known: boolean } {
  return { value: o.value, sensitive: o.sensitive, known: o.known };
}

/** `fleetform output [NAME]`: the outputs the last apply kept, one by name or all of them. */
export async function runOutput(name: string | undefined, opts: OutputOptions): Promise<void> {
  const byStack = await keptOutputs(opts.stack);
  if (name !== undefined) {
    const holders = [...byStack].filter(([, outputs]) => outputs[name] !== undefined);
    if (holders.length === 0) {
      const known = [...byStack.values()].flatMap((o) => Object.keys(o));
      throw new FleetformError(`no output named ${name}`, {
        path: name,
        hint: known.length > 0 ? `outputs: ${known.join(', ')}` : 'apply first: outputs are kept by apply',
      });
    }
    if (holders.length > 1)
      throw new FleetformError(`stacks ${holders.map(([s]) => s).join(', ')} all have an output ${name}`, {
        path: name,
        hint: 'name one with --stack',
      });
    const output = (holders[0] as [string, Record<string, StateOutput>])[1][name] as StateOutput;
    if (opts.json) process.stdout.write(`${JSON.stringify(jsonOf(output), null, 2)}\n`);
    else if (output.sensitive)
      throw new FleetformError(`output ${name} is sensitive: its value is never kept or shown`, {
        path: name,
        hint: 'read it from the resource it comes from',
      });
    else process.stdout.write(`${typeof output.value === 'string' ? output.value : JSON.stringify(output.value, null, 2)}\n`);
    return;
  }
  if (opts.json) {
    const all: Record<string, Record<string, ReturnType<typeof jsonOf>>> = {};
    for (const [stack, outputs] of byStack) all[stack] = Object.fromEntries(Object.entries(outputs).map(([k, v]) => [k, jsonOf(v)]));
    process.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
    return;
  }
  const withOutputs = [...byStack].filter(([, o]) => Object.keys(o).length > 0);
  for (const [stack, outputs] of withOutputs) {
    if (withOutputs.length > 1) process.stdout.write(`# stack ${stack}\n`);
    for (const line of formatOutputs(outputs)) process.stdout.write(`${line}\n`);
  }
}
