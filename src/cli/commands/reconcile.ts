import type { Command } from 'commander';
import { InputError } from '../../domain/errors';
import type { ReconcilerStatus } from '../../reconciler/events';
import type { AppRunner } from '../app-runner';
import { addAccessOptions, DASHBOARD_TOKEN_ENV } from '../dashboard-access';
import type { ReconcileOptions } from './reconcile-run';
import { runOf } from './runs';

const collect = (value: string, previous: string[]): string[] => [...previous, value];
const DEFAULT_SERVER = 'http://127.0.0.1:9464';

/** Where `status`, `approve`, `heal` and `override` find the running reconciler. */
function serverUrl(opts: { server?: string }): string {
  return (opts.server ?? process.env.FLEETFORM_RECONCILE_URL ?? DEFAULT_SERVER).replace(/\/+$/, '');
}

async function call(
  opts: { server?: string },
  method: 'GET' | 'POST',
  route: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const base = serverUrl(opts);
  const token = process.env[DASHBOARD_TOKEN_ENV]?.trim();
  const headers: Record<string, string> = {
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
  };
  let res: Response;
  try {
    res = await fetch(`${base}${route}`, { method, headers, ...(method === 'POST' ? { body: JSON.stringify(body ?? {}) } : {}) });
  } catch {
    throw new InputError(`no reconciler answers at ${base}`, {
      path: '--server',
      hint: 'start `fleetform reconcile --listen HOST:PORT` and give that address (or FLEETFORM_RECONCILE_URL)',
    });
  }
  const json: unknown = await res.json().catch(() => ({ error: `the reconciler answered HTTP ${res.status}` }));
  if (res.status === 401 || res.status === 403) {
    const refusal = json as { error?: string; hint?: string };
    throw new InputError(refusal.error ?? `refused (HTTP ${res.status})`, {
      path: DASHBOARD_TOKEN_ENV,
      hint: refusal.hint ?? `set ${DASHBOARD_TOKEN_ENV} to the reconciler's token`,
    });
  }
  return { status: res.status, json };
}

function statusText(s: ReconcilerStatus): string {
  const lines = [
    `Reconciler: ${s.state}${s.leader ? ' (leader)' : ''}, cycle ${s.cycle}${s.commit ? `, commit ${s.commit.slice(0, 12)}` : ''}`,
  ];
  if (s.lastCycle)
    lines.push(
      `Last cycle: ${s.lastCycle.at}, ${s.lastCycle.ok ? 'ok' : `FAILED: ${s.lastCycle.error ?? ''}`} in ${s.lastCycle.seconds.toFixed(1)}s`,
    );
  if (s.failing)
    lines.push(
      `Failing: ${s.failing.failures} cycle(s) in a row since ${s.failing.since} (${s.failing.cause}): ${s.failing.error}; next try ${s.failing.retryAt}`,
    );
  if (s.nextCheckAt && !s.failing) lines.push(`Next drift check: ${s.nextCheckAt}`);
  if (s.override) lines.push(`Windows overridden: ${s.override.windows}${s.override.until ? ` until ${s.override.until}` : ''}`);
  for (const st of s.stacks) {
    const held = (st.held ?? []).map((h) => `; ${h.machines.length} machine(s) of location ${h.location} held: ${h.reason}`).join('');
    const planned = st.windowHeld ? `; windows hold ${st.windowHeld} of its change(s) now` : '';
    const waiting = `${st.waiting ? `; waiting for ${st.waiting.for}: ${st.waiting.reason}` : ''}${held}${planned}`;
    lines.push(
      `  stack ${st.stack} (apply ${st.apply}, drift ${st.drift}): ${st.changes} change(s), ${st.drifted.length} drifted${waiting}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export function register(program: Command, apps: AppRunner): void {
  const cmd: Command = program
    .command('reconcile')
    .description('keep the fleet as the code says: plan on every commit and every interval, apply by policy, heal or report drift')
    .option('--path <dir>', 'the project folder (inside the repository with --repo)', '.')
    .option(
      '--repo <url-or-path>',
      'a git repository to follow (credentials from the environment: FLEETFORM_GIT_TOKEN or git credential helpers)',
    )
    .option('--branch <name>', 'the branch to follow', 'main')
    .option('--workdir <dir>', 'where the repository is checked out (default .fleetform/reconcile/checkout)')
    .option(
      '--apply <policy>',
      'default apply policy: auto, approve or plan-only (a stack may set its own with ReconcilePolicy)',
      process.env.FLEETFORM_RECONCILE_APPLY ?? 'auto',
    )
    .option('--drift <policy>', 'default drift policy: heal, warn or off', process.env.FLEETFORM_RECONCILE_DRIFT ?? 'warn')
    .option('--interval <duration>', 'how often to check for drift', process.env.FLEETFORM_RECONCILE_INTERVAL ?? '1m')
    .option(
      '--poll <duration>',
      'how often to look for a new commit between cycles (default 1s; 15s for a remote repository, asked with git ls-remote; POST /api/refresh asks at once)',
      process.env.FLEETFORM_RECONCILE_POLL,
    )
    .option(
      '--window <spec>',
      "allow or deny window KIND:CRON:DURATION[:TZ], e.g. 'deny:0 9 * * 1-5:8h:Europe/Berlin' (repeatable)",
      collect,
      [],
    )
    .option(
      '--webhook <url>',
      'POST every event to this URL as JSON (slack:URL for Slack text; repeatable; URLs with tokens: FLEETFORM_WEBHOOK_URLS)',
      collect,
      [],
    )
    .option(
      '--max-destroy <n>',
      'a plan destroying more objects than this waits for an approval, whatever the policy',
      process.env.FLEETFORM_RECONCILE_MAX_DESTROY ?? '0',
    )
    .option(
      '--listen <host:port>',
      `serve /healthz, /metrics, the API and the dashboard (/dashboard/; actions need the token in ${DASHBOARD_TOKEN_ENV}) here ("off": no server)`,
      process.env.FLEETFORM_RECONCILE_LISTEN ?? '127.0.0.1:9464',
    )
    .option(
      '--app-timeout <duration>',
      'how long a run of the app may take; then it is ended with every process it started and the cycle fails',
      process.env.FLEETFORM_APP_TIMEOUT ?? '5m',
    )
    .option(
      '--install <mode>',
      "with --repo: auto installs each commit's npm dependencies with `npm ci` from its package-lock.json, once per lockfile; off installs nothing",
      process.env.FLEETFORM_RECONCILE_INSTALL ?? 'auto',
    )
    .option('--install-scripts', "let `npm ci` run the install scripts of the repository's dependencies (default: --ignore-scripts)")
    .option(
      '--install-timeout <duration>',
      'how long an install may take; then it is ended with every process it started and the cycle fails',
      process.env.FLEETFORM_INSTALL_TIMEOUT ?? '5m',
    )
    .option('--install-cache <dir>', 'where installs are kept, one per lockfile (default .fleetform/reconcile/dependencies)')
    .option(
      '--pass-env <name>',
      "pass this variable of the reconciler's environment to the app (repeatable; also FLEETFORM_PASS_ENV); by default the app gets only what it needs to run and its cdktf.json fleetform.passEnv",
      collect,
      [],
    )
    .option(
      '--allow-app-endpoint',
      "let the app's FleetProvider choose the endpoint the API key goes to (default: only FLEETFORM_ENDPOINT's, or the embedded emulator)",
    )
    .option(
      '--backoff-max <duration>',
      'the longest wait between failing cycles (the first waits --poll, doubled at each failure; a new commit retries at once)',
      process.env.FLEETFORM_RECONCILE_BACKOFF_MAX ?? '10m',
    )
    .option('--log-format <format>', 'text or json', process.env.FLEETFORM_LOG_FORMAT ?? 'text')
    .option('--parallelism <n>', 'how many resources are written at once', '10')
    .option('--read-parallelism <n>', 'the most reads in flight while planning', '512');
  addAccessOptions(cmd).action((opts: ReconcileOptions) => runOf('reconcile').runReconciler(opts, apps));

  const server = (c: Command): Command =>
    c.option('--server <url>', `the running reconciler's address (default FLEETFORM_RECONCILE_URL, else ${DEFAULT_SERVER})`);
  server(cmd.command('status').description('what the running reconciler is doing').option('--json', 'print the status as JSON')).action(
    async (opts: { server?: string; json?: boolean }) => {
      const r = await call(opts, 'GET', '/api/status');
      process.stdout.write(opts.json ? `${JSON.stringify(r.json, null, 2)}\n` : statusText(r.json as ReconcilerStatus));
    },
  );
  server(cmd.command('approve <stack>').description('approve the plan a stack waits on; the reconciler applies it at once')).action(
    async (stack: string, opts: { server?: string }) => {
      const r = await call(opts, 'POST', `/api/approve/${encodeURIComponent(stack)}`);
      if (r.status !== 200)
        throw new InputError((r.json as { error?: string }).error ?? `refused (HTTP ${r.status})`, {
          path: stack,
          hint: 'see `fleetform reconcile status` for the stacks waiting',
        });
      process.stdout.write(`Approved: stack ${stack} is applied now.\n`);
    },
  );
  server(cmd.command('heal').description('start a cycle now: check for drift and heal it by policy')).action(
    async (opts: { server?: string }) => {
      await call(opts, 'POST', '/api/heal');
      process.stdout.write('A cycle starts now.\n');
    },
  );
  server(
    cmd
      .command('override')
      .description('open or close every window by hand (applies start, or none does), for a while or until cleared')
      .option('--open', 'let applies start whatever the windows say')
      .option('--close', 'let no apply start')
      .option('--clear', 'go back to the windows')
      .option('--for <duration>', 'how long the override lasts (default: until cleared)'),
  ).action(async (opts: { server?: string; open?: boolean; close?: boolean; clear?: boolean; for?: string }) => {
    const chosen = [opts.open, opts.close, opts.clear].filter(Boolean).length;
    if (chosen !== 1) throw new InputError('give one of --open, --close or --clear', { path: 'override' });
    const r = await call(opts, 'POST', '/api/override', {
      windows: opts.open ? 'open' : opts.close ? 'closed' : null,
      ...(opts.for ? { for: opts.for } : {}),
    });
    if (r.status !== 200) throw new InputError((r.json as { error?: string }).error ?? `refused (HTTP ${r.status})`, { path: '--for' });
    process.stdout.write(`Windows: ${JSON.stringify(r.json)}\n`);
  });
  cmd
    .command('events-schema')
    .description('print the JSON schema of the events webhooks receive')
    .action(() => runOf('reconcile').printEventsSchema());
}
