import type { Command } from 'commander';
import type { AppRunner } from '../app-runner';
import { addEngineOptions } from '../engine-options';
import type { AdoptOptions } from './adopt-run';
import { runOf } from './runs';

export function register(program: Command, apps: AppRunner): void {
  addEngineOptions(
    program
      .command('adopt')
      .description(
        'turn an existing organization into code and state: locations, fragments and their tags, machines and their configs, datasets and training jobs',
      )
      .option('--organization <id>', "the organization to adopt (default: the API key's only organization, or FLEETFORM_ORGANIZATION_ID)")
      .option('--location <id...>', 'only these locations and their machines')
      .option('--out <file>', 'the TypeScript file to write', 'stacks/adopted.ts')
      .option('--stack-name <name>', 'the stack the adopted objects are managed in', 'adopted')
      .option('--no-jobs', 'leave training jobs out')
      .option('--terraform', 'write import blocks for `cdktf deploy`/`terraform apply` instead of fleetform state')
      .option('--cdk <cdktf|cdktn>', 'the CDK the code is written for (default: the one the project depends on)')
      .option('--finish', 'import what an earlier adopt wrote, once the app declares its stack and its secret variables are set')
      .option('--allow-missing-secrets', 'with --finish: import even though a secret variable the adopted code reads is unset')
      .option('--force', 'write over existing files, and into a stack that already has state'),
  ).action((opts: AdoptOptions & { finish?: boolean }) => runOf('adopt').runAdopt(opts, apps));
}
