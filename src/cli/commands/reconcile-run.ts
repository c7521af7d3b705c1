/** What `fleetform reconcile` and `fleetform reconcile events-schema` do when they run, loaded then; their names, flags and help are in reconcile.ts. */
import * as path from 'node:path';
import { InputError } from '../../domain/errors';
import { parseWindow } from '../../domain/sync-windows';
import { APPLY_POLICIES, DRIFT_POLICIES, eventJsonSchema, type ApplyPolicy, type DriftPolicy } from '../../reconciler/events';
import { boundHeapGrowth } from '../../reconciler/heap-growth';
import { streamLogger, type LogFormat } from '../../reconciler/log';
import { startReconciler } from '../../reconciler/run';
import { parseListen } from '../../reconciler/server';
import { defaultPollMs, folderSource, gitSource } from '../../reconciler/source';
import { webhooksFromEnv, webhookTarget } from '../../reconciler/webhooks';
import type { AppRunner } from '../app-runner';
import { durationFlag } from '../engine-options';
import { projectLoader } from '../reconcile-project';
import { accessSettings, dashboardToken, type AccessFlags } from '../dashboard-access';
import { passEnvFromEnvironment } from '../app-environment';
import { parseDuration } from '../../domain/duration';
import { processRedactor } from '../../engine/redactor';
import { dependencyInstaller } from '../reconcile-install';

export interface ReconcileOptions extends AccessFlags {
  path: string;
  repo?: string;
  branch: string;
  workdir?: string;
  apply: string;
  drift: string;
  interval: string;
  poll?: string;
  window: string[];
  webhook: string[];
  maxDestroy: string;
  listen: string;
  appTimeout: string;
  install: string;
  installScripts?: boolean;
  installTimeout: string;
  installCache?: string;
  passEnv: string[];
  allowAppEndpoint?: boolean;
  backoffMax: string;
  logFormat: string;
  parallelism: string;
  readParallelism: string;
}

function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new InputError(`expected ${allowed.join(', ')}, not ${JSON.stringify(value)}`, { path: flag });
}

function wholeNumber(text: string, flag: string, min: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min)
    throw new InputError(`expected a whole number of at least ${min}, not ${JSON.stringify(text)}`, { path: flag });
  return n;
}

function urlPassword(url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

/** `fleetform reconcile`: runs the reconciler until SIGTERM or SIGINT, then stops after the cycle under way. */
export async function runReconciler(opts: ReconcileOptions, apps: AppRunner): Promise<void> {
  boundHeapGrowth();
  const logFormat = oneOf<LogFormat>(opts.logFormat, ['text', 'json'], '--log-format');
  const token = opts.listen === 'off' ? undefined : dashboardToken(process.env);
  const access = opts.listen === 'off' ? undefined : accessSettings(opts, token);
  const logger = streamLogger(logFormat, (line) => process.stderr.write(line));
  const intervalMs = durationFlag(opts.interval, '--interval');
  const pollMs = opts.poll === undefined ? defaultPollMs(opts.repo) : durationFlag(opts.poll, '--poll');
  if (intervalMs < 1000) throw new InputError('the interval is at least 1s', { path: '--interval' });
  const appTimeoutMs = parseDuration(opts.appTimeout, '--app-timeout', { minimumMs: 100 });
  const backoffMaxMs = parseDuration(opts.backoffMax, '--backoff-max', { minimumMs: 1000 });
  const cwd = process.cwd();
  const install = oneOf(opts.install, ['auto', 'off'], '--install');
  const installTimeoutMs = parseDuration(opts.installTimeout, '--install-timeout', { minimumMs: 1000 });
  const passEnv = [...opts.passEnv, ...passEnvFromEnvironment(process.env)];
  // A folder is the user's own: its dependencies are theirs to install.
  const dependencies =
    opts.repo && install === 'auto'
      ? dependencyInstaller({
          cacheDir: path.resolve(cwd, opts.installCache ?? path.join('.fleetform', 'reconcile', 'dependencies')),
          timeoutMs: installTimeoutMs,
          scripts: opts.installScripts === true,
          env: process.env,
          passEnv,
        })
      : undefined;
  const source = opts.repo
    ? gitSource({
        repo: opts.repo,
        branch: opts.branch,
        path: opts.path,
        workdir: path.resolve(cwd, opts.workdir ?? path.join('.fleetform', 'reconcile', 'checkout')),
      })
    : folderSource(path.resolve(cwd, opts.path));
  // Tokens given on the command line are secrets too: the webhooks' URLs and a password in --repo's.
  for (const url of opts.webhook) processRedactor.addUrl(url);
  if (opts.repo) processRedactor.add(urlPassword(opts.repo));
  const running = await startReconciler({
    source,
    loader: projectLoader({
      apps,
      parallelism: wholeNumber(opts.parallelism, '--parallelism', 1),
      readParallelism: wholeNumber(opts.readParallelism, '--read-parallelism', 1),
      appTimeoutMs,
      passEnv,
      ...(opts.allowAppEndpoint ? { allowAppEndpoint: true } : {}),
    }),
    ...(dependencies ? { dependencies } : {}),
    backoffMaxMs,
    apply: oneOf<ApplyPolicy>(opts.apply, APPLY_POLICIES, '--apply'),
    drift: oneOf<DriftPolicy>(opts.drift, DRIFT_POLICIES, '--drift'),
    windows: opts.window.map((w) => parseWindow(w)),
    intervalMs,
    pollMs: Math.max(50, pollMs),
    maxDestroy: wholeNumber(opts.maxDestroy, '--max-destroy', 0),
    webhooks: [...opts.webhook.map(webhookTarget), ...webhooksFromEnv(process.env)],
    ...(opts.listen === 'off' || !access ? {} : { listen: parseListen(opts.listen), dashboard: {}, access }),
    logger,
  });
  await new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      logger.log('info', `${signal}: stopping after the cycle under way (a rollout pauses at its next wave)`);
      resolve();
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  await running.close();
}

/** `fleetform reconcile events-schema`: the JSON schema of the events webhooks receive. */
export function printEventsSchema(): void {
  process.stdout.write(`${JSON.stringify(eventJsonSchema(), null, 2)}\n`);
}
