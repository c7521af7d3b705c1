/**
 * The code each command runs, by command: loaded when the command runs rather than at every
 * command line, so that a command line's start loads its options and none of the engine.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- each module is loaded only when its command runs */
const runModules = {
  adopt: (): typeof import('./adopt-run') => require('./adopt-run') as typeof import('./adopt-run'),
  apply: (): typeof import('./apply-run') => require('./apply-run') as typeof import('./apply-run'),
  'config-validate': (): typeof import('./config-validate-run') =>
    require('./config-validate-run') as typeof import('./config-validate-run'),
  dashboard: (): typeof import('./dashboard-run') => require('./dashboard-run') as typeof import('./dashboard-run'),
  destroy: (): typeof import('./destroy-run') => require('./destroy-run') as typeof import('./destroy-run'),
  'emulator-controls': (): typeof import('./emulator-controls-run') =>
    require('./emulator-controls-run') as typeof import('./emulator-controls-run'),
  'emulator-serve': (): typeof import('./emulator-serve-run') => require('./emulator-serve-run') as typeof import('./emulator-serve-run'),
  env: (): typeof import('./env-run') => require('./env-run') as typeof import('./env-run'),
  'force-unlock': (): typeof import('./force-unlock-run') => require('./force-unlock-run') as typeof import('./force-unlock-run'),
  import: (): typeof import('./import-run') => require('./import-run') as typeof import('./import-run'),
  init: (): typeof import('./init-run') => require('./init-run') as typeof import('./init-run'),
  output: (): typeof import('./output-run') => require('./output-run') as typeof import('./output-run'),
  plan: (): typeof import('./plan-run') => require('./plan-run') as typeof import('./plan-run'),
  reconcile: (): typeof import('./reconcile-run') => require('./reconcile-run') as typeof import('./reconcile-run'),
  rollout: (): typeof import('./rollout-run') => require('./rollout-run') as typeof import('./rollout-run'),
  'rollout-abort': (): typeof import('./rollout-abort-run') => require('./rollout-abort-run') as typeof import('./rollout-abort-run'),
  'rollout-resume': (): typeof import('./rollout-resume-run') => require('./rollout-resume-run') as typeof import('./rollout-resume-run'),
  state: (): typeof import('./state-run') => require('./state-run') as typeof import('./state-run'),
  'state-migrate': (): typeof import('./state-migrate-run') => require('./state-migrate-run') as typeof import('./state-migrate-run'),
  status: (): typeof import('./status-run') => require('./status-run') as typeof import('./status-run'),
  synth: (): typeof import('./synth-run') => require('./synth-run') as typeof import('./synth-run'),
  training: (): typeof import('./training-run') => require('./training-run') as typeof import('./training-run'),
  validate: (): typeof import('./validate-run') => require('./validate-run') as typeof import('./validate-run'),
};
/* eslint-enable @typescript-eslint/no-require-imports */

export type CommandRun = keyof typeof runModules;

/** The module that runs `command`, loaded on first use. */
export function runOf<K extends CommandRun>(command: K): ReturnType<(typeof runModules)[K]> {
  return runModules[command]() as ReturnType<(typeof runModules)[K]>;
}
