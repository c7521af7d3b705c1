/**
 * The bench fleet's synthesized stack grown to any size without synthesizing it: its
 * machines differ only by name and arm host, so machine 0's resource, as cdktf wrote it, is
 * written for every machine with its name and host put in. At 100,000 machines a synth would
 * cost minutes and gigabytes of its own, which the plan's figures are not about.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FLEET_STACK, machineName } from './fleet';
import { substitute } from './reconcile-seed';

const STACK_FILE = path.join('stacks', FLEET_STACK, 'cdk.tf.json');

/** Writes into `to` the stack synthesized in `from` with `size` machines, machine 0 repeated. */
export function growFleetStack(from: string, to: string, size: number): void {
  const doc = JSON.parse(fs.readFileSync(path.join(from, STACK_FILE), 'utf8')) as {
    resource: { fleetform_machine: Record<string, unknown> };
  };
  const template = JSON.stringify(doc.resource.fleetform_machine[machineName(0)]);
  if (template === undefined) throw new Error(`no ${machineName(0)} in ${from}`);
  fs.mkdirSync(path.dirname(path.join(to, STACK_FILE)), { recursive: true });
  fs.copyFileSync(path.join(from, 'manifest.json'), path.join(to, 'manifest.json'));
  // The document around the machines, then the machines one by one: no text of the whole stack is held.
  const marker = '"__machines__"';
  const [head, tail] = JSON.stringify({ ...doc, resource: { ...doc.resource, fleetform_machine: '__machines__' } }).split(marker) as [
    string,
    string,
  ];
  const fd = fs.openSync(path.join(to, STACK_FILE), 'w');
  try {
    fs.writeSync(fd, `${head}{`);
    const none = new Map<string, string>();
    for (let i = 0; i < size; i++)
      fs.writeSync(fd, `${i > 0 ? ',' : ''}${JSON.stringify(machineName(i))}:${substitute(template, none, i)}`);
    fs.writeSync(fd, `}${tail}`);
  } finally {
    fs.closeSync(fd);
  }
}
