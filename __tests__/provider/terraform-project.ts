/** A project on the emulator that the real Terraform CLI runs in: its stack folder, its environment and `tf` there. */
import * as path from 'node:path';
import { openEmulatorProject, type EmulatorProject } from '../e2e/fleet-fixture';
import { requireTerraform, terraform, terraformHome, type RunResult } from './terraform-cli';

export interface TerraformProject {
  readonly project: EmulatorProject;
  readonly env: NodeJS.ProcessEnv;
  /** The synthesized stack's folder, where Terraform runs. */
  readonly stackDir: string;
  tf(...args: string[]): Promise<RunResult>;
  close(): Promise<void>;
}

/** Opens an emulator project for the stack `stack`, failing loudly when terraform is missing. */
export async function openTerraformProject(prefix: string, stack = 'fleet'): Promise<TerraformProject> {
  requireTerraform();
  const project = await openEmulatorProject(prefix);
  const env = await terraformHome(project.dir, project.env);
  const stackDir = path.join(project.outdir, 'stacks', stack);
  return { project, env, stackDir, tf: (...args) => terraform(stackDir, env, ...args), close: () => project.close() };
}
