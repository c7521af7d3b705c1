/** The fleet page's rows: each machine's health (status) joined with its module cards and its location. */
import { locationKind, type MachineHealth, machineKind, type ModuleCard } from '../engine/readings';
import { isObject } from '../domain/json-value';
import type { State } from '../engine';
import type { FleetMachine, FleetModule } from './view';

export const machineKey = (stack: string, machine: string): string => `${stack}/${machine}`;

/** Location names by id (those the stacks manage), and each machine's location id by key. */
export function locationsOf(states: readonly State[]): { names: Map<string, string>; ofMachine: Map<string, string> } {
  const names = new Map<string, string>();
  const ofMachine = new Map<string, string>();
  for (const state of states) {
    for (const [address, entry] of Object.entries(state.resources)) {
      const attrs = isObject(entry.attributes) ? entry.attributes : {};
      if (entry.type === locationKind.type && entry.ids.id && typeof attrs.name === 'string') names.set(entry.ids.id, attrs.name);
      if (entry.type === machineKind.type) {
        const name = typeof attrs.name === 'string' ? attrs.name : address;
        const location = typeof attrs.location_id === 'string' ? attrs.location_id : '';
        ofMachine.set(machineKey(state.stack, name), location);
      }
    }
  }
  return { names, ofMachine };
}

function problemsOf(m: MachineHealth): string[] {
  if (m.unreachable) return [`status not reachable: ${m.unreachable}`];
  return [
    ...m.modules.filter((x) => x.error !== '').map((x) => `module ${x.name} ${x.state}: ${x.error}`),
    ...m.resources.filter((r) => r.error !== '').map((r) => `resource ${r.name} ${r.state}: ${r.error}`),
    ...(m.packages ?? []).filter((x) => x.error !== '').map((x) => `package ${x.name}@${x.version} ${x.state}: ${x.error}`),
  ];
}

/** The location ids machines of the states are in whose names the states do not hold (locations the stacks do not manage). */
export function unnamedLocations(states: readonly State[]): string[] {
  const { names, ofMachine } = locationsOf(states);
  return [...new Set([...ofMachine.values()].filter((id) => id !== '' && !names.has(id)))].sort();
}

/**
 * One row per machine, sorted by stack and name. A location's name is the one its stack
 * manages, else the one `otherLocations` read from the service, else its id.
 */
export function fleetMachines(
  machines: readonly MachineHealth[],
  cards: readonly ModuleCard[],
  states: readonly State[],
  otherLocations: ReadonlyMap<string, string> = new Map(),
): FleetMachine[] {
  const { names, ofMachine } = locationsOf(states);
  const cardsOf = new Map<string, ModuleCard[]>();
  for (const c of cards) {
    const key = machineKey(c.stack, c.machine);
    cardsOf.set(key, [...(cardsOf.get(key) ?? []), c]);
  }
  const rows = machines.map((m): FleetMachine => {
    const key = machineKey(m.stack, m.machine);
    const locationId = ofMachine.get(key) ?? '';
    const modules = (cardsOf.get(key) ?? []).map((c): FleetModule => {
      const reported = m.modules.find((x) => x.name === c.module);
      return {
        name: c.module,
        moduleId: c.moduleId,
        policy: c.policy,
        ...(c.registryError ? { error: c.registryError.message } : {}),
        ...(c.running !== undefined && !c.registryError ? { running: c.running } : {}),
        ...(c.latest !== undefined && !c.registryError ? { latest: c.latest } : {}),
        admitsLatest: !c.registryError && c.admitsLatest,
        ...(reported ? { state: reported.state, ...(reported.error ? { error: reported.error } : {}) } : {}),
        ...(c.fragment ? { fragment: { id: c.fragment.id, ...(c.fragment.name ? { name: c.fragment.name } : {}) } } : {}),
      };
    });
    return {
      key,
      stack: m.stack,
      machine: m.machine,
      partId: m.partId,
      location: names.get(locationId) ?? otherLocations.get(locationId) ?? locationId,
      locationId,
      online: m.online,
      secondsSinceOnline: m.secondsSinceOnline,
      health: m.health,
      ...(m.runningRevision !== undefined ? { runningRevision: m.runningRevision } : {}),
      latestRevision: m.latestRevision,
      modules,
      resources: { ready: m.resources.filter((r) => r.state === 'ready').length, total: m.resources.length },
      problems: problemsOf(m),
    };
  });
  return rows.sort((a, b) => a.key.localeCompare(b.key));
}
