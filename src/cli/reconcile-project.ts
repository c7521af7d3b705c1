/**
 * The projects a reconciler loads: the app run as `fleetform plan` runs it, an engine over
 * the state backend its stacks declare, and one connection to the service kept across
 * loads while the stacks name the same endpoint.
 */
import { defaultKinds, Engine, readStacks, StateLockedError } from '../engine';
import type { ProjectLoader, ReconcileProject } from '../reconciler/project';
import type { AppRunner } from './app-runner';
import { appEndpointAllowed, appEndpointOf, chosenEndpoint, openConnection, type Connection } from './connection';
import { rolloutJournals } from './rollout-output';
import { backendFor, declaredBackend } from './state-backend';

/** The pseudo-stack whose lock is the reconciler's leader lease. */
export const LEADER_LOCK = 'fleetform-reconcile-leader';

export interface LoaderOptions {
  readonly apps: AppRunner;
  readonly parallelism: number;
  readonly readParallelism: number;
  readonly env?: NodeJS.ProcessEnv;
  /** How long each run of the app may take (its process group is ended then), ms. */
  readonly appTimeoutMs?: number;
  /** Variables the operator passes to the app besides those it gets anyway (`--pass-env`). */
  readonly passEnv?: readonly string[];
  /** The app's FleetProvider may name the endpoint (`--allow-app-endpoint`); else only the pinned one, or none, is taken. */
  readonly allowAppEndpoint?: boolean;
}

export function projectLoader(options: LoaderOptions): ProjectLoader {
  const env = options.env ?? process.env;
  let open: { key: string; connection: Promise<Connection> } | undefined;
  const allowApp = options.allowAppEndpoint ?? appEndpointAllowed(env);
  const connect = (cwd: string, app: { endpoint: string; stack: string } | undefined): Promise<Connection> => {
    // A commit naming another endpoint than the operator's is refused here, before any connection.
    const endpoint = chosenEndpoint(env.FLEETFORM_ENDPOINT || undefined, app, allowApp);
    const key = `${endpoint ?? `embedded:${cwd}`}`;
    if (open?.key === key) return open.connection;
    const before = open;
    open = {
      key,
      connection: openConnection({
        cwd,
        env,
        maxConnections: options.readParallelism,
        allowAppEndpoint: allowApp,
        ...(app ? { providerEndpoint: app.endpoint, providerStack: app.stack } : {}),
      }),
    };
    void before?.connection.then((c) => c.close()).catch(() => undefined);
    return open.connection;
  };
  return {
    async load(dir: string): Promise<ReconcileProject> {
      const app = await options.apps.run({
        cwd: dir,
        ...(options.appTimeoutMs !== undefined ? { timeoutMs: options.appTimeoutMs } : {}),
        ...(options.passEnv !== undefined ? { passEnv: options.passEnv } : {}),
      });
      const stacks = await readStacks(app.outdir);
      const connection = await connect(dir, appEndpointOf(stacks));
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
