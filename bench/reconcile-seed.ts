/**
 * Grows a fleet applied by fleetform into a large one without applying each machine: the
 * bench fleet's machines differ only by name and arm host, so machine 0 (its emulator rows
 * and its state entry, as a real apply wrote them) is copied for every machine from
 * `from` to `size`, straight into the emulator's SQLite file (a second connection; WAL
 * allows it) and the stack's local state file, names, host and ids put in. The first full
 * plan after it must find nothing to change: the bench checks that it applies nothing.
 */
import Database from 'better-sqlite3';
import { randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { encodeStruct, type StructObject } from '../src/api/struct-codec';
import { DATABASE_FILE } from '../src/emulator';
import { FLEET_STACK, machineHost, machineName } from './fleet';

interface PartRow {
  readonly robot_id: string;
  readonly config: string;
  readonly config_as_sent: number;
  readonly created_on: number;
  readonly last_updated: number;
}

interface DeploymentRow {
  readonly module_name: string;
  readonly module_id: string;
  readonly policy: string;
  readonly deployed_version: string;
  readonly updated_at: number;
}

interface StateFile {
  serial: number;
  resources: Record<string, unknown>;
}

/** Puts the machine `i`'s name, host and ids in place of machine 0's in a text. */
export function substitute(text: string, ids: ReadonlyMap<string, string>, i: number): string {
  let out = text;
  for (const [from, to] of ids) out = out.split(from).join(to);
  return out
    .split(machineName(0))
    .join(machineName(i))
    .replace(new RegExp(`${machineHost(0).replace(/\./g, '\\.')}(?=\\\\?")`, 'g'), machineHost(i));
}

/** Copies machine 0 as machines `from` to `size - 1`, in the emulator of `dataDir` and the state in `stateDir`. */
export function cloneFleetMachines(dataDir: string, stateDir: string, from: number, size: number): void {
  const stateFile = path.join(stateDir, `${FLEET_STACK}.state.json`);
  const state = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as StateFile;
  const template = state.resources[`fleetform_machine.${machineName(0)}`] as { ids: { machine_id: string; part_id: string } } | undefined;
  if (!template) throw new Error(`no ${machineName(0)} in ${stateFile}`);
  const entryText = JSON.stringify(template);
  const db = new Database(path.join(dataDir, DATABASE_FILE));
  db.pragma('busy_timeout = 5000');
  const robot = db.prepare('SELECT location_id, created_on FROM robots WHERE id = ?').get(template.ids.machine_id) as
    { location_id: string; created_on: number } | undefined;
  const part = db
    .prepare('SELECT robot_id, config, config_as_sent, created_on, last_updated FROM robot_parts WHERE id = ?')
    .get(template.ids.part_id) as PartRow | undefined;
  if (!robot || !part) throw new Error(`${machineName(0)} is not in the emulator`);
  const deployments = db.prepare('SELECT * FROM module_deployments WHERE part_id = ?').all(template.ids.part_id) as DeploymentRow[];
  const insertRobot = db.prepare('INSERT INTO robots (id, location_id, name, created_on) VALUES (?, ?, ?, ?)');
  const insertPart = db.prepare(
    'INSERT INTO robot_parts (id, robot_id, name, main_part, secret, config, config_struct, config_as_sent, created_on, last_updated) VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?)',
  );
  const insertDeployment = db.prepare(
    'INSERT INTO module_deployments (part_id, module_name, module_id, policy, deployed_version, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  db.transaction(() => {
    for (let i = from; i < size; i++) {
      const machineId = randomUUID();
      const partId = randomUUID();
      const ids = new Map([
        [template.ids.machine_id, machineId],
        [template.ids.part_id, partId],
      ]);
      const config = substitute(part.config, ids, i);
      insertRobot.run(machineId, robot.location_id, machineName(i), robot.created_on + i);
      const struct = Buffer.from(encodeStruct(JSON.parse(config) as StructObject));
      insertPart.run(
        partId,
        machineId,
        `${machineName(i)}-main`,
        randomBytes(24).toString('base64url'),
        config,
        struct,
        part.config_as_sent,
        part.created_on + i,
        part.last_updated + i,
      );
      for (const d of deployments) insertDeployment.run(partId, d.module_name, d.module_id, d.policy, d.deployed_version, d.updated_at);
      state.resources[`fleetform_machine.${machineName(i)}`] = JSON.parse(substitute(entryText, ids, i)) as unknown;
    }
  })();
  db.close();
  state.serial += 1;
  fs.writeFileSync(`${stateFile}.tmp`, JSON.stringify(state));
  fs.renameSync(`${stateFile}.tmp`, stateFile);
}
