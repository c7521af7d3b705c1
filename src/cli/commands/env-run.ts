/** What `fleetform env` does when it runs, loaded then; its name, flags and help are in env.ts. */
import type { AppRunner } from '../app-runner';
import type { EngineCommandOptions } from '../engine-options';
import * as os from 'node:os';
import * as path from 'node:path';
import { isSecretEnvName, machineHome, moduleEnvironment, parseMachineConfig, unreceivableEnvEntry, type ModuleConfig } from '../../domain';
import { FleetformError } from '../../domain/errors';
import { unescapedAttributes } from '../../engine';
import { isObject, type JsonObject } from '../../domain/json-value';
import { runningModuleVersion, withSecretEnv } from '../../engine/readings';
import { withWorkspace } from '../workspace';

export type EnvOptions = EngineCommandOptions & { showSecrets?: boolean; all?: boolean };

const MACHINE_KEY = '(the machine API key, issued by the service)';

/** `fleetform env ADDRESS MODULE`: the environment a machine module's process receives, secrets masked unless asked. */
export async function runEnv(address: string, moduleName: string, opts: EnvOptions, apps: AppRunner): Promise<void> {
  await withWorkspace(opts, apps, async (ws) => {
    const stack = ws.stacks.find((s) => s.resources.some((r) => r.address === address));
    const declared = stack?.resources.find((r) => r.address === address);
    const resource = declared && { ...declared, attributes: unescapedAttributes(declared.attributes) as JsonObject };
    if (!stack || !resource || typeof resource.attributes.config !== 'string') {
      throw new FleetformError(`no machine ${address} in the app`, {
        path: address,
        hint: 'machine addresses look like fleetform_machine.<id>; see `fleetform state list`',
      });
    }
    const secretEnv = isObject(resource.attributes.secret_env) ? resource.attributes.secret_env : {};
    const secretOf = Object.fromEntries(Object.entries(secretEnv).filter((e): e is [string, string] => typeof e[1] === 'string'));
    const config = parseMachineConfig(withSecretEnv(JSON.parse(resource.attributes.config) as Record<string, unknown>, secretOf).config, {
      allowUnpinnedModules: true,
    });
    const found = (config.modules ?? []).find((m) => m.name === moduleName);
    if (!found) {
      throw new FleetformError(`machine ${address} has no module ${moduleName}`, {
        path: `${address}.config.modules`,
        hint: `its modules: ${(config.modules ?? []).map((m) => m.name).join(', ') || '(none)'}`,
      });
    }
    for (const [name, value] of Object.entries(found.env ?? {})) {
      const reason = unreceivableEnvEntry(name, value);
      if (reason)
        throw new FleetformError(reason, {
          path: `${address}.config.modules.${moduleName}.env`,
          hint: 'rename the entry in the app: letters, digits and "_"; no NUL in values',
        });
    }
    let module: ModuleConfig = found;
    const entry = (await ws.backend.read(stack.name)).resources[address];
    if (module.type !== 'local' && module.module_id) {
      const versions = (await ws.connection.client.appClient.getModule(module.module_id)).versions.map((v) => v.version);
      const version = runningModuleVersion(module, entry, versions);
      if (version) module = { ...module, version };
    }
    const ctx = await ws.engine.context(stack.provider);
    const identity = entry?.ids.machine_id
      ? {
          machineId: entry.ids.machine_id,
          partId: entry.ids.part_id ?? '',
          locationId: typeof entry.attributes?.location_id === 'string' ? entry.attributes.location_id : ctx.locationId,
          organizationId: ctx.organizationId,
          apiKey: MACHINE_KEY,
          apiKeyId: MACHINE_KEY,
          home: machineHome(process.env) ?? path.join(os.homedir(), '.viam'),
        }
      : undefined;
    const result = moduleEnvironment(module, process.env, identity);
    const secret = new Set(
      Object.keys(secretOf)
        .filter((s) => s.startsWith(`${moduleName}.`))
        .map((s) => s.slice(moduleName.length + 1)),
    );
    const names = Object.keys(result.env)
      .filter((k) => opts.all || process.env[k] !== result.env[k])
      .sort();
    if (!identity) process.stdout.write(`# ${address} is not applied yet: cloud identity variables appear once it exists\n`);
    for (const name of names) {
      const masked = !opts.showSecrets && (isSecretEnvName(name) || secret.has(name));
      const value = result.env[name] === MACHINE_KEY ? MACHINE_KEY : masked ? '(sensitive)' : result.env[name];
      process.stdout.write(`${name}=${value}\n`);
    }
    if (result.missing.length > 0)
      process.stderr.write(
        `warning: the machine server's environment lacks ${result.missing.join(', ')}; those placeholders stay unsubstituted\n`,
      );
  });
}
