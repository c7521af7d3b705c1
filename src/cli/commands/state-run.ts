/** What `fleetform state list|show|mv|rm` do when they run, loaded then; their names, flags and help are in state.ts. */
import { FleetformError } from '../../domain/errors';
import { redact, type State } from '../../engine';
import { durationFlag } from '../engine-options';
import { projectBackend, type ProjectStateBackend } from '../state-backend';

let chosen: Promise<ProjectStateBackend> | undefined;
function backend(): Promise<ProjectStateBackend> {
  chosen ??= projectBackend(process.cwd());
  return chosen;
}

async function states(only: string[] | undefined): Promise<State[]> {
  const b = await backend();
  const names = only && only.length > 0 ? only : await b.stacks();
  return Promise.all(names.map((n) => b.read(n)));
}

/** Finds the one stack holding an address (or the named one). */
async function locate(address: string, stack: string | undefined): Promise<State> {
  const found = (await states(stack ? [stack] : undefined)).filter((s) => s.resources[address]);
  if (found.length === 0)
    throw new FleetformError(`no resource ${address} in state`, { path: address, hint: 'see `fleetform state list`' });
  if (found.length > 1)
    throw new FleetformError(`${address} is in several stacks: ${found.map((s) => s.stack).join(', ')}`, {
      path: address,
      hint: 'name one with --stack',
    });
  return found[0] as State;
}

/** `fleetform state list`: the addresses each stack manages, marked when deleting, interrupted or deposed. */
export async function runStateList(opts: { stack?: string[] }): Promise<void> {
  for (const s of await states(opts.stack)) {
    for (const address of Object.keys(s.resources).sort()) {
      const entry = s.resources[address];
      const mark =
        entry?.status === 'deleting'
          ? '\t(deleting)'
          : entry?.status === 'creating'
            ? '\t(create interrupted; the next plan looks for it)'
            : address.includes('#deposed')
              ? '\t(deposed)'
              : '';
      process.stdout.write(`${s.stack}\t${address}${mark}\n`);
    }
  }
}

/** `fleetform state show ADDRESS`: the attributes last applied to one resource, secrets masked. */
export async function runStateShow(address: string, opts: { stack?: string }): Promise<void> {
  const s = await locate(address, opts.stack);
  const entry = s.resources[address];
  if (!entry) return;
  const lines = [`# ${address} (stack ${s.stack}${entry.status === 'deleting' ? ', deletion in progress' : ''})`, `type = ${entry.type}`];
  for (const [k, v] of Object.entries(entry.ids)) lines.push(`ids.${k} = ${v}`);
  lines.push(`attributes = ${JSON.stringify(redact(entry.attributes ?? undefined) ?? null, null, 2)}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** `fleetform state mv SOURCE DESTINATION`: manages a remote object at a new address, without touching the service. */
export async function runStateMove(source: string, destination: string, opts: { stack?: string; lockTimeout: string }): Promise<void> {
  const s = await locate(source, opts.stack);
  const b = await backend();
  const lock = await b.lock(s.stack, 'state mv', { timeoutMs: durationFlag(opts.lockTimeout, '--lock-timeout') });
  try {
    const fresh = await b.read(s.stack);
    const entry = fresh.resources[source];
    if (!entry)
      throw new FleetformError(`no resource ${source} in state (moved while waiting for the lock)`, {
        path: source,
        hint: 'see `fleetform state list`',
      });
    if (fresh.resources[destination]) {
      throw new FleetformError(`${destination} is already managed`, {
        path: destination,
        hint: `\`fleetform state rm ${destination}\` first, or pick another address`,
      });
    }
    const type = destination.split('.')[0];
    if (type !== entry.type || !/^[\w-]+\.[\w-]+$/.test(destination)) {
      throw new FleetformError(`${destination} is not an address of a ${entry.type}`, {
        path: destination,
        hint: `write it as ${entry.type}.NEW_ID`,
      });
    }
    delete fresh.resources[source];
    fresh.resources[destination] = entry;
    fresh.serial += 1;
    await b.write(fresh);
    process.stdout.write(`Moved ${source} to ${destination} in the state of stack ${s.stack}; the remote object is untouched.\n`);
  } finally {
    await lock.release();
  }
}

/** `fleetform state rm ADDRESS`: stops managing a resource without deleting it on the service. */
export async function runStateRemove(address: string, opts: { stack?: string; lockTimeout: string }): Promise<void> {
  const s = await locate(address, opts.stack);
  const b = await backend();
  const lock = await b.lock(s.stack, 'state rm', { timeoutMs: durationFlag(opts.lockTimeout, '--lock-timeout') });
  try {
    const fresh = await b.read(s.stack);
    if (!fresh.resources[address]) {
      throw new FleetformError(`no resource ${address} in state (removed while waiting for the lock)`, {
        path: address,
        hint: 'see `fleetform state list`',
      });
    }
    delete fresh.resources[address];
    fresh.serial += 1;
    await b.write(fresh);
    process.stdout.write(`Removed ${address} from the state of stack ${s.stack}; the remote object is untouched.\n`);
  } finally {
    await lock.release();
  }
}
