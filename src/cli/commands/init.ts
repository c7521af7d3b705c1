import type { Command } from 'commander';
import type { InitOptions } from './init-run';
import { runOf } from './runs';

export function register(program: Command): void {
  program
    .command('init [dir]')
    .description('make a new CDK Terrain project with a two-machine fleet, ready to plan on the embedded emulator')
    .option('--fleetform-spec <spec>', 'how the project depends on fleetform (a tarball, a folder or a version); default: this fleetform')
    .option('--force', 'write into a folder that is not empty, replacing the files the project is made of')
    .action((dir: string | undefined, opts: InitOptions) => runOf('init').runInit(dir ?? '.', opts));
}
