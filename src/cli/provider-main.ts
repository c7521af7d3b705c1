import { FleetformError } from '../domain/errors';
import { defaultKinds } from '../engine/kinds';
import { providerHandlers, servePlugin, type ProviderBlock, type ProviderConnection } from '../provider';
import { openConnection } from './connection';

/** The provider block's endpoint and key win over the environment, as Terraform users expect of a provider. */
function connectionEnv(block: ProviderBlock, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...env,
    ...(block.endpoint ? { FLEETFORM_ENDPOINT: block.endpoint } : {}),
    ...(block.apiKeyId ? { FLEETFORM_API_KEY_ID: block.apiKeyId } : {}),
    ...(block.apiKey ? { FLEETFORM_API_KEY: block.apiKey } : {}),
  };
}

async function connect(block: ProviderBlock): Promise<ProviderConnection> {
  const c = await openConnection({ cwd: process.cwd(), env: connectionEnv(block, process.env) });
  return {
    client: c.client,
    endpoint: c.endpoint,
    defaults: { ...(c.organizationId ? { organizationId: c.organizationId } : {}), ...(c.locationId ? { locationId: c.locationId } : {}) },
    close: () => c.close(),
  };
}

/**
 * `terraform-provider-fleetform`: the Terraform/OpenTofu provider. Terraform starts it,
 * it answers on a unix socket over mutual TLS, and exits when Terraform shuts it down.
 */
export async function providerMain(): Promise<number> {
  const { handlers, close } = providerHandlers({ kinds: defaultKinds(), connect, env: process.env });
  try {
    const plugin = await servePlugin(handlers);
    await plugin.stopped;
    return 0;
  } catch (err) {
    process.stderr.write(`terraform-provider-fleetform: ${err instanceof FleetformError ? err.format() : err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await close();
  }
}
