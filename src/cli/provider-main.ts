import * as fs from 'node:fs';
import * as path from 'node:path';
import { FleetformError, errorMessage } from '../domain/errors';
import { checkServiceEndpoint } from '../domain/service-endpoint';
import { defaultKinds } from '../engine';
import { providerHandlers, servePlugin, type ProviderBlock, type ProviderConnection } from '../provider';
import { intentsFolder } from '../provider/create-intents';

/** The provider block's endpoint and key win over the environment, as Terraform users expect of a provider. */
function connectionEnv(block: ProviderBlock, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...env,
    ...(block.endpoint ? { FLEETFORM_ENDPOINT: block.endpoint } : {}),
    ...(block.apiKeyId ? { FLEETFORM_API_KEY_ID: block.apiKeyId } : {}),
    ...(block.apiKey ? { FLEETFORM_API_KEY: block.apiKey } : {}),
  };
}

/**
 * The folder whose `.fleetform/emulator` holds the embedded emulator's data: the CDKTF
 * project's (the nearest folder above with a cdktf.json, as `cdktf deploy` runs Terraform in
 * cdktf.out/stacks/<stack>), so `cdktf deploy` and `fleetform plan` see one fleet; else the
 * working directory.
 */
export function projectFolder(start: string): string {
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'cdktf.json'))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(start);
  }
}

/** An endpoint the provider block writes (not one it took from FLEETFORM_ENDPOINT) is checked as the block's, named so. */
export function checkBlockEndpoint(block: ProviderBlock, env: NodeJS.ProcessEnv): void {
  if (block.endpoint !== undefined && block.endpoint !== env.FLEETFORM_ENDPOINT)
    checkServiceEndpoint(block.endpoint, 'provider "fleetform": endpoint');
}

async function connect(block: ProviderBlock): Promise<ProviderConnection> {
  checkBlockEndpoint(block, process.env);
  // Loaded on first use: Terraform starts the provider several times a run, most of them only for its schema.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, synchronously
  const { openConnection } = require('./connection') as typeof import('./connection');
  const c = await openConnection({ cwd: projectFolder(process.cwd()), env: connectionEnv(block, process.env) });
  return {
    client: c.client,
    endpoint: c.endpoint,
    defaults: { ...(c.organizationId ? { organizationId: c.organizationId } : {}), ...(c.locationId ? { locationId: c.locationId } : {}) },
    apiKey: c.apiKey,
    close: () => c.close(),
  };
}

/**
 * `terraform-provider-fleetform`: the Terraform/OpenTofu provider. Terraform starts it,
 * it answers on a unix socket over mutual TLS, and exits when Terraform shuts it down.
 */
export async function providerMain(): Promise<number> {
  const { handlers, close } = providerHandlers({
    kinds: defaultKinds(),
    connect,
    env: process.env,
    intentsDir: intentsFolder(projectFolder(process.cwd())),
  });
  try {
    const plugin = await servePlugin(handlers);
    await plugin.stopped;
    return 0;
  } catch (err) {
    process.stderr.write(`terraform-provider-fleetform: ${err instanceof FleetformError ? err.format() : errorMessage(err)}\n`);
    return 1;
  } finally {
    await close();
  }
}
