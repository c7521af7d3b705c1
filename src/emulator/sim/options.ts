/** Settings of the simulated machines: from options first, then FLEETFORM_EMULATOR_* variables, then defaults. */
import { parseDuration } from '../../domain/duration';
import { InputError } from '../../domain/errors';
import { machineFaultsFromEnv, type MachineFault } from './machine-faults';

export const SIMULATION_ENV = {
  simulate: 'FLEETFORM_EMULATOR_SIMULATE',
  checkInIntervalMs: 'FLEETFORM_EMULATOR_CHECK_IN_INTERVAL',
  moduleStartMs: 'FLEETFORM_EMULATOR_MODULE_START_TIME',
  resourceConfigureMs: 'FLEETFORM_EMULATOR_RESOURCE_CONFIGURE_TIME',
} as const;

export interface SimulationSettings {
  /** Whether machine parts are run by simulated machines. */
  readonly simulate: boolean;
  readonly checkInIntervalMs: number;
  /** How long a module takes to start. */
  readonly moduleStartMs: number;
  /** How long a resource takes to configure once its module is up. */
  readonly resourceConfigureMs: number;
  readonly machineFaults: readonly MachineFault[];
}

export const DEFAULT_SIMULATION: Omit<SimulationSettings, 'machineFaults'> = {
  simulate: true,
  checkInIntervalMs: 5000,
  moduleStartMs: 1000,
  resourceConfigureMs: 500,
};

/** Whether a variable's text turns simulation off (0, false, off, no). */
function parseSwitch(text: string, path: string): boolean {
  const t = text.trim().toLowerCase();
  if (['1', 'true', 'on', 'yes'].includes(t)) return true;
  if (['0', 'false', 'off', 'no'].includes(t)) return false;
  throw new InputError(`expected on or off, not ${JSON.stringify(text)}`, { path, hint: 'use 1/true/on or 0/false/off' });
}

/** The settings: each from `given`, else its variable, else the default; faults from the variable come before given ones. */
export function resolveSimulation(env: NodeJS.ProcessEnv, given: Partial<SimulationSettings> = {}): SimulationSettings {
  const fromEnv = <K extends 'checkInIntervalMs' | 'moduleStartMs' | 'resourceConfigureMs'>(key: K, minimum: number): number => {
    const text = env[SIMULATION_ENV[key]];
    return (
      given[key] ??
      (text === undefined || text === '' ? DEFAULT_SIMULATION[key] : parseDuration(text, SIMULATION_ENV[key], { minimumMs: minimum }))
    );
  };
  const simulateText = env[SIMULATION_ENV.simulate];
  return {
    simulate:
      given.simulate ??
      (simulateText === undefined || simulateText === ''
        ? DEFAULT_SIMULATION.simulate
        : parseSwitch(simulateText, SIMULATION_ENV.simulate)),
    checkInIntervalMs: fromEnv('checkInIntervalMs', 1),
    moduleStartMs: fromEnv('moduleStartMs', 0),
    resourceConfigureMs: fromEnv('resourceConfigureMs', 0),
    machineFaults: [...machineFaultsFromEnv(env), ...(given.machineFaults ?? [])],
  };
}
