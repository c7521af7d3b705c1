import type { Command } from 'commander';
import type { AppRunner } from '../app-runner';
import { register as adopt } from './adopt';
import { register as apply } from './apply';
import { register as configValidate } from './config-validate';
import { register as dashboard } from './dashboard';
import { register as destroy } from './destroy';
import { register as emulatorControls } from './emulator-controls';
import { register as emulatorServe } from './emulator-serve';
import { register as env } from './env';
import { register as forceUnlock } from './force-unlock';
import { register as importCommand } from './import';
import { register as init } from './init';
import { register as output } from './output';
import { register as plan } from './plan';
import { register as provider } from './provider-install';
import { register as reconcile } from './reconcile';
import { register as rollout } from './rollout';
import { register as state } from './state';
import { register as status } from './status';
import { register as synth } from './synth';
import { register as training } from './training';
import { register as validate } from './validate';

/** Every sub-command, each in its own file, registered on the root program. */
const registrations: ReadonlyArray<(program: Command, apps: AppRunner) => void> = [
  init,
  configValidate,
  validate,
  synth,
  plan,
  apply,
  destroy,
  state,
  output,
  importCommand,
  adopt,
  forceUnlock,
  status,
  training,
  rollout,
  reconcile,
  dashboard,
  env,
  emulatorServe,
  emulatorControls,
  provider,
];

export function registerCommands(program: Command, apps: AppRunner): void {
  for (const register of registrations) register(program, apps);
}
