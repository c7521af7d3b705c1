/**
 * The projects a reconciler loads: the app run as `fleetform plan` runs it, an engine over
 * the state backend its stacks declare, and one connection to the service kept across
 * loads while the stacks name the same endpoint.
 */
import { readStacks } from '../engine/desired/read-stacks';
import { Engine } from '../engine/engine';
import { defaultKinds } from '../engine/kinds';
import { StateLockedError } from '../engine/state/holder-process';
import type { ProjectLoader, ReconcileProject } from '../reconciler/project';
import type { AppRunner } from './app-runner';
import { openConnection, providerEndpoint, type Connection } from './connection';
import { rolloutJournals } from './rollout-output';
import { backendFor, declaredBackend } from './state-backend';

/** The pseudo-stack whose lock is the reconciler's leader lease. */
export const LEADER_LOCK = 'fleetform-reconcile-leader';

export interface LoaderOptions {
  readonly apps: AppRunner;
  readonly parallelism: number;
  readonly readParallelism: number;
  readonly env?: NodeJS.ProcessEnv;
}

export function projectLoader(options: LoaderOptions): ProjectLoader {
  const env = options.env ?? process.env;
  let open: { key: string; connection: Promise<Connection> } | undefined;
  const connect = (cwd: string, endpoint: string | undefined): Promise<Connection> => {
    const key = `${env.FLEETFORM_ENDPOINT || endpoint || `embedded:${cwd}`}`;
    if (open?.key === key) return open.connection;
    const before = open;
    open = { key, connection: openConnection({ cwd, env, maxConnections: options.readParallelism, providerEndpoint: endpoint }) };
    void before?.connection.then((c) => c.close()).catch(() => undefined);
    return open.connection;
  };
  return {
    async load(dir: string): Promise<ReconcileProject> {
      const app = await options.apps.run({ cwd: dir });
      const stacks = await readStacks(app.outdir);
      const connection = await connect(dir, providerEndpoint(stacks.map((s) => s.provider.endpoint)));
      const backend = backendFor(declaredBackend(stacks), dir, env);
      const journals = rolloutJournals(backend, dir);
      const kinds = defaultKinds();
      const engine = new Engine({
        client: connection.client,
        backend,
        kinds,
        parallelism: options.parallelism,
        readParallelism: options.readParallelism,
        lockTimeoutMs: 0,
        // A lock left by a fleetform no longer running on this machine (a killed leader) is taken over.
        breakStaleLock: () => Promise.resolve(true),
        rolloutJournal: journals,
        defaults: {
          ...(connection.organizationId ? { organizationId: connection.organizationId } : {}),
          ...(connection.locationId ? { locationId: connection.locationId } : {}),
        },
      });
      return {
        stacks,
        engine,
        fleet: { client: connection.client, backend, journals },
        readers: { kinds },
        async lead(holder) {
          try {
            const lock = await backend.lock(LEADER_LOCK, `reconcile leader ${holder}`, {
              timeoutMs: 0,
              breakStale: () => Promise.resolve(true),
            });
            return () => lock.release();
          } catch (err) {
            if (err instanceof StateLockedError) return undefined;
            throw err;
          }
        },
      };
    },
    async close() {
      const c = open;
      open = undefined;
      await c?.connection.then((x) => x.close()).catch(() => undefined);
    },
  };
}
