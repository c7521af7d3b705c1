/**
 * A reconciler with everything around it: its log, its webhooks, its metrics and (given a
 * listen address) its HTTP server. What `fleetform reconcile` starts, and tests too.
 */
import { dashboardHandler, type DashboardHandler } from '../dashboard/http-handler';
import type { AccessSettings } from '../domain/http-access';
import { reconcilerDashboardSource, type ReconcilerDashboardSource } from './dashboard-source';
import type { ReconcilerEvent } from './events';
import type { Logger } from './log';
import { ReconcilerMetrics } from './metrics';
import { Reconciler, type ReconcilerSettings } from './reconciler';
import { ReconcilerServer } from './server';
import { WebhookNotifier, type WebhookOptions, type WebhookTarget } from './webhooks';

export interface RunningReconciler {
  readonly reconciler: Reconciler;
  readonly server: ReconcilerServer | undefined;
  /** The server's URL when it listens. */
  readonly url: string | undefined;
  readonly metrics: ReconcilerMetrics;
  /** Stops the loop (a rollout pauses at its next wave boundary), delivers pending webhooks, closes the server. */
  close(): Promise<void>;
}

export interface RunOptions extends ReconcilerSettings {
  readonly webhooks: readonly WebhookTarget[];
  readonly webhookOptions?: WebhookOptions;
  readonly listen?: { readonly host: string; readonly port: number };
  /** Serves the dashboard at /dashboard/ of the listen address; its actions need the token (none: read-only). */
  readonly dashboard?: { readonly token?: string; readonly fleetIntervalMs?: number };
  /** Who may use the server: the token (default: the dashboard's), the Host names allowed, whether reads need the token. */
  readonly access?: AccessSettings;
  readonly logger: Logger;
}

/** Where the reconciler's server mounts the dashboard. */
export const DASHBOARD_PATH = '/dashboard';

/** Events written to the log as they happen (the rest of the log says how cycles went). */
const LOGGED: ReadonlySet<ReconcilerEvent['type']> = new Set([
  'drift-found',
  'drift-healed',
  'approval-needed',
  'apply-waiting',
  'wave-passed',
  'rollout-paused',
  'rollout-stopped',
  'cycle-failed',
]);

export async function startReconciler(options: RunOptions): Promise<RunningReconciler> {
  const { logger } = options;
  const reconciler = new Reconciler(options);
  const metrics = new ReconcilerMetrics();
  metrics.watchFailures(() => reconciler.status().failing?.failures ?? 0);
  const notifier = new WebhookNotifier(options.webhooks, {
    ...options.webhookOptions,
    onGiveUp: (receiver, event, why) => logger.log('warn', 'webhook delivery given up', { receiver, event: event.type, why }),
  });
  reconciler.subscribe((e) => {
    metrics.observe(e);
    if (e.type === 'cycle-finished') {
      const st = reconciler.status();
      for (const s of st.stacks) metrics.stackChecked(s.stack, s.changes, s.drifted.length);
      metrics.waitingStacks(st.stacks);
      metrics.heldMachines(st.stacks);
    }
    if (LOGGED.has(e.type)) {
      const { type, at: _at, ...fields } = e;
      logger.log(type === 'cycle-failed' || type === 'rollout-stopped' ? 'warn' : 'info', type, fields);
    }
    if (e.type !== 'cycle-started' && e.type !== 'cycle-finished') notifier.notify(e);
  });
  let server: ReconcilerServer | undefined;
  let url: string | undefined;
  let dashboard: { source: ReconcilerDashboardSource; handler: DashboardHandler } | undefined;
  if (options.listen) {
    const token = options.access?.token ?? options.dashboard?.token;
    const access: AccessSettings = { ...options.access, token, listenHost: options.listen.host };
    server = new ReconcilerServer(reconciler, metrics, () => reconciler.status().state !== 'stopped', access);
    if (options.dashboard) {
      const fleetIntervalMs = options.dashboard.fleetIntervalMs ?? 2000;
      const source = reconcilerDashboardSource(reconciler, { fleetIntervalMs, rolloutIntervalMs: Math.min(fleetIntervalMs, 500) });
      const handler = dashboardHandler(source, {
        basePath: DASHBOARD_PATH,
        ...access,
        log: (line) => logger.log('info', line),
      });
      server.mount(DASHBOARD_PATH, handler);
      // The fleet's health, read for the dashboard, is counted for /metrics too.
      source.subscribe((change) => {
        if (change.kind === 'snapshot') metrics.machinesByHealth(change.snapshot.machines);
      });
      dashboard = { source, handler };
    }
    url = await server.listen(options.listen.host, options.listen.port);
    logger.log('info', 'listening', {
      url,
      ...(dashboard ? { dashboard: `${url}${DASHBOARD_PATH}/`, actions: token ? 'need the token' : 'read-only' } : {}),
    });
  }
  logger.log('info', 'reconciler started', {
    source: options.source.description,
    apply: options.apply,
    drift: options.drift,
    interval_ms: options.intervalMs,
    webhooks: notifier.count,
  });
  reconciler.start();
  return {
    reconciler,
    server,
    url,
    metrics,
    close: async () => {
      await reconciler.stop();
      await notifier.drain();
      dashboard?.handler.close();
      dashboard?.source.close();
      await server?.close();
      await options.loader.close();
    },
  };
}
