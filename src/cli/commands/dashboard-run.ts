/** What `fleetform dashboard` does when it runs, loaded then; its name, flags and help are in dashboard.ts. */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { FleetformError } from '../../domain/errors';
import { startDashboardServer } from '../../dashboard/server';
import type { RolloutTarget, SourceEvent } from '../../dashboard/source';
import { standaloneSource } from '../../dashboard/standalone-source';
import type { DeclaredRollouts } from '../../dashboard/rollout-view';
import type { ActionResult, EventLevel } from '../../dashboard/view';
import { parseDuration } from '../../domain/duration';
import type { AppRunner } from '../app-runner';
import { openConnection } from '../connection';
import { rolloutJournals } from '../rollout-output';
import { checkedAgainstWindows, releaseIfPaused, type RolloutJournalStore, type StateBackend } from '../../engine';
import { writeSavedPlan } from '../saved-plan';
import { projectBackend } from '../state-backend';
import { durationFlag, type EngineCommandOptions } from '../engine-options';
import { withWorkspace } from '../workspace';
import { accessSettings, dashboardToken, DASHBOARD_TOKEN_ENV, parseListen, type AccessFlags } from '../dashboard-access';

export interface DashboardOptions extends EngineCommandOptions, AccessFlags {
  listen: string;
  interval: string;
  planEvery: string;
  plan: boolean;
}

/** Runs `fleetform apply ARGS` in the background (waiting for the state lock a while); its output lines are reported as events of `kind`. */
function applyInBackground(
  opts: DashboardOptions,
  kind: string,
  stack: string,
  args: readonly string[],
  report: (event: SourceEvent) => void,
): number | undefined {
  const argv = [
    process.argv[1] ?? 'fleetform',
    'apply',
    ...args,
    '--lock-timeout',
    '1m',
    ...(opts.synthOut ? ['--synth-out', opts.synthOut] : []),
  ];
  const child = spawn(process.execPath, argv, {
    cwd: process.cwd(),
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines = (level: EventLevel) => (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') report({ kind, level, stack, message: line });
  };
  child.stdout.on('data', lines('info'));
  child.stderr.on('data', lines('warn'));
  child.on('close', (code) => report({ kind, level: code === 0 ? 'info' : 'error', stack, message: `apply ended with exit code ${code}` }));
  return child.pid;
}

/** Resumes a rollout by running apply for its stack: a journal left running is resumed from its wave; one a pause step or its schedule's stop holds is released first. */
function resumeByApply(
  opts: DashboardOptions,
  journals: RolloutJournalStore,
  backend: StateBackend,
): (target: RolloutTarget, report: (event: SourceEvent) => void) => Promise<ActionResult> {
  return async (target, report) => {
    await releaseIfPaused({ ...target, journals, backend, lockTimeoutMs: 60_000 });
    const pid = applyInBackground(opts, 'resume', target.stack, ['--auto-approve', '--stack', target.stack], report);
    return { ok: true, message: `resuming: fleetform apply started for stack ${target.stack} (pid ${pid})` };
  };
}

/** Approving applies exactly the plan the dashboard shows, saved when it was made (apply refuses it once the state moved on). */
function approveByApply(
  opts: DashboardOptions,
  planFile: string,
): (stack: string, report: (event: SourceEvent) => void) => Promise<ActionResult> {
  return async (stack, report) => {
    const pid = applyInBackground(opts, 'approve', stack, [planFile], report);
    return { ok: true, message: `approved: fleetform apply of the pending plan started (pid ${pid})` };
  };
}

/** Serves the dashboard until SIGINT or SIGTERM, then closes it and its connection. */
export async function runDashboard(opts: DashboardOptions, apps: AppRunner): Promise<void> {
  const listen = parseListen(opts.listen);
  const token = dashboardToken(process.env);
  const access = accessSettings(opts, token);
  const fleetIntervalMs = parseDuration(opts.interval, '--interval', { minimumMs: 100 });
  const planIntervalMs = durationFlag(opts.planEvery, '--plan-every');
  const backend = await projectBackend(process.cwd());
  const connection = await openConnection({ cwd: process.cwd(), env: process.env });
  const planDir = await mkdtemp(path.join(os.tmpdir(), 'fleetform-dashboard-'));
  const planFile = path.join(planDir, 'pending.plan');
  const log = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };
  // The rollouts the code declares, as the last plan read it: the rest are shown as history.
  let declared: readonly DeclaredRollouts[] | undefined;
  const source = standaloneSource({
    declaredRollouts: () => declared,
    client: connection.client,
    backend,
    journals: rolloutJournals(backend, process.cwd()),
    stacks: async () => (opts.stack && opts.stack.length > 0 ? opts.stack : backend.stacks()),
    fleetIntervalMs,
    rolloutIntervalMs: Math.min(fleetIntervalMs, 500),
    ...(opts.plan
      ? {
          planIntervalMs: Math.max(planIntervalMs, 1000),
          pendingPlan: () =>
            withWorkspace(opts, apps, async (ws) => {
              declared = ws.stacks;
              const release = await ws.engine.lock(
                ws.stacks.map((s) => s.name),
                'dashboard plan',
              );
              try {
                const planned = await ws.engine.plan(ws.stacks, { refresh: true, destroy: false });
                // The plans page says what the windows would hold, as `fleetform plan` does; approving it is an apply that respects them.
                const plan = checkedAgainstWindows(planned.plan, ws.stacks, planned.states, []);
                await writeSavedPlan(planFile, plan);
                return plan;
              } finally {
                await release();
              }
            }),
        }
      : {}),
    resume: resumeByApply(opts, rolloutJournals(backend, process.cwd()), backend),
    ...(opts.plan ? { approve: approveByApply(opts, planFile) } : {}),
  });
  let server;
  try {
    server = await startDashboardServer(source, listen, { ...access, log });
  } catch (err) {
    source.close();
    await connection.close();
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new FleetformError(`${opts.listen} is already in use`, {
        path: '--listen',
        hint: 'pick another port, or port 0 for any free one',
      });
    throw err;
  }
  process.stdout.write(
    `dashboard on ${server.url} (${token ? 'actions need the token' : `read-only: set ${DASHBOARD_TOKEN_ENV} to allow actions`})\n`,
  );
  await new Promise<void>((resolve) => {
    const on = (): void => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve();
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
  source.close();
  await server.close();
  await connection.close();
  await rm(planDir, { recursive: true, force: true });
}
