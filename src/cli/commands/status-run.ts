/** What `fleetform status` does when it runs, loaded then; its name, flags and help are in status.ts. */
import { InputError } from '../../domain/errors';
import {
  machineHealth,
  type MachineHealth,
  machineRuns,
  type ModuleCard,
  moduleCards,
  pipelineRuns,
  type PipelineRuns,
  trainingProgress,
  modelHistories,
  withFailedTraining,
  type ModelHistory,
  type TrainingProgress,
} from '../../engine/readings';
import { parseDuration } from '../../domain/duration';
import { openConnection } from '../connection';
import { formatTable } from '../text-table';
import { projectBackend } from '../state-backend';

export interface StatusOptions {
  stack?: string[];
  json?: boolean;
  watch?: boolean;
  interval: string;
}

function count(items: readonly { state: string }[]): string {
  if (items.length === 0) return '-';
  const unhealthy = items.filter((x) => x.state === 'unhealthy').length;
  return `${items.filter((x) => x.state === 'ready').length}/${items.length} ready${unhealthy > 0 ? `, ${unhealthy} unhealthy` : ''}`;
}

function onlineCell(m: MachineHealth): string {
  return m.online === 'offline' ? `offline ${m.secondsSinceOnline}s` : m.online;
}

function configCell(m: MachineHealth): string {
  if (m.runningRevision === undefined) return '-';
  return m.runningRevision === m.latestRevision
    ? `latest (${m.latestRevision})`
    : `runs ${m.runningRevision || 'none'}, latest ${m.latestRevision}`;
}

function ago(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 120) return `${seconds}s ago`;
  return seconds < 7200 ? `${Math.round(seconds / 60)}m ago` : `${Math.round(seconds / 3600)}h ago`;
}

/** Each job's newest run in one line: `jobs: calibrate ok 2m ago, nightly FAILED 1m ago (3 of last 5 failed)`. */
function jobsLine(m: MachineHealth, now: number): string[] {
  if (!m.jobs || m.jobs.length === 0) return [];
  const words = m.jobs.map((j) => {
    if (j.last === 'not run' || j.lastAt === undefined) return `${j.name} not run yet`;
    const failures = j.failed > 0 ? ` (${j.failed} of last ${j.runs} failed)` : '';
    return `${j.name} ${j.last === 'failed' ? 'FAILED' : 'ok'} ${ago(j.lastAt, now)}${failures}`;
  });
  return [`${m.machine}: jobs: ${words.join(', ')}`];
}

/** What went wrong on a machine: a fragment error, a module's or resource's error, or why its status could not be read. */
function problems(m: MachineHealth): string[] {
  const fragments = (m.fragmentErrors ?? []).map((e) => `${m.machine}: fragment error: ${e}`);
  if (m.unreachable) return [...fragments, `${m.machine}: status not reachable: ${m.unreachable}`];
  return [
    ...fragments,
    ...(m.heldByMaintenance === undefined ? [] : [`${m.machine}: latest config pending, held by maintenance (${m.heldByMaintenance})`]),
    ...m.modules
      .filter((x) => x.error !== '')
      .map((x) => `${m.machine}: module ${x.name} ${x.state} (${x.consecutiveFailures} consecutive failures): ${x.error}`),
    ...m.resources.filter((r) => r.error !== '').map((r) => `${m.machine}: resource ${r.name} (${r.api}) ${r.state}: ${r.error}`),
    ...(m.packages ?? []).filter((x) => x.error !== '').map((x) => `${m.machine}: package ${x.name}@${x.version} ${x.state}: ${x.error}`),
  ];
}

/** One row per package of each machine: what it downloads and how far it got. */
function packageTable(machines: readonly MachineHealth[]): string {
  const rows = [['STACK', 'MACHINE', 'PACKAGE', 'TYPE', 'VERSION', 'STATE']];
  for (const m of machines) for (const x of m.packages ?? []) rows.push([m.stack, m.machine, x.name, x.type, x.version, x.state]);
  return rows.length > 1 ? `${formatTable(rows)}\n` : '';
}

/** One row per training job: the model it makes, its status and how long it has trained. */
function trainingTable(jobs: readonly TrainingProgress[]): string {
  if (jobs.length === 0) return '';
  const rows = [['STACK', 'TRAINING JOB', 'MODEL', 'STATUS', 'TRAINING']];
  for (const j of jobs)
    rows.push([
      j.stack,
      j.address,
      j.model,
      j.error ? `${j.status}: ${j.error}` : j.status,
      j.trainingSeconds === undefined ? '-' : `${j.trainingSeconds}s`,
    ]);
  return `${formatTable(rows)}\n`;
}

/** One row per recent run of each data pipeline, newest first: its status, when it started and ended, why it failed. */
function pipelineTable(pipelines: readonly PipelineRuns[]): string {
  if (pipelines.length === 0) return '';
  const rows = [['STACK', 'DATA PIPELINE', 'NAME', 'STATE', 'RUN', 'STARTED', 'ENDED', 'ERROR']];
  for (const p of pipelines) {
    const head = [p.stack, p.address, p.name, p.state];
    if (p.runs.length === 0) rows.push([...head, p.state === 'gone' ? '-' : 'none yet', '-', '-', '']);
    p.runs.forEach((r, i) =>
      rows.push([...(i === 0 ? head : ['', '', '', '']), r.status, r.startTime ?? '-', r.endTime ?? '-', r.error ?? '']),
    );
  }
  return `${formatTable(rows)}\n`;
}

/** One row per decided version of each promoted model, the machines on each version, and a failed job's last log lines. */
export function modelTable(models: readonly ModelHistory[]): string {
  if (models.length === 0) return '';
  const rows = [['STACK', 'MODEL', 'VERSION', 'VERDICT', 'AT', 'MACHINES', 'WHY']];
  for (const m of models)
    for (const v of m.versions) {
      const on = m.machines.filter((x) => x.version === v.version).map((x) => x.machine);
      rows.push([m.stack, m.model, v.version, v.status, v.at, on.length > 0 ? on.join(', ') : '-', v.why]);
    }
  const notes = models.flatMap((m) => [
    ...m.machines
      .filter((x) => !m.versions.some((v) => v.version === x.version))
      .map((x) => `${m.model}: ${x.machine} runs version ${x.version}, not decided yet`),
    ...m.failedTraining.flatMap((f) => [
      `${m.model}: training job ${f.address} (${f.model}) failed${f.error ? `: ${f.error}` : ''}; its last lines:`,
      ...f.log.map((l) => `  ${l}`),
    ]),
  ]);
  return `${formatTable(rows)}${notes.map((n) => `  ${n}\n`).join('')}\n`;
}

interface StatusView {
  readonly machines: readonly MachineHealth[];
  readonly cards: readonly ModuleCard[];
  readonly jobs: readonly TrainingProgress[];
  readonly pipelines: readonly PipelineRuns[];
  readonly models: readonly ModelHistory[];
}

/** A module's name, and the fragment it comes from when it does. */
function moduleCell(c: ModuleCard): string {
  return c.fragment ? `${c.module} (fragment ${c.fragment.name ?? c.fragment.id})` : c.module;
}

/** What `fleetform status` prints: the machines, their packages, the training jobs, the data pipelines' last runs and each registry module a machine runs, its fragments' included. */
export function statusText(
  machines: readonly MachineHealth[],
  cards: readonly ModuleCard[],
  jobs: readonly TrainingProgress[] = [],
  pipelines: readonly PipelineRuns[] = [],
  models: readonly ModelHistory[] = [],
): string {
  let out = '';
  if (machines.length > 0) {
    const rows = [['STACK', 'MACHINE', 'ONLINE', 'HEALTH', 'CONFIG', 'MODULES', 'RESOURCES']];
    for (const m of machines) rows.push([m.stack, m.machine, onlineCell(m), m.health, configCell(m), count(m.modules), count(m.resources)]);
    out += formatTable(rows);
    const now = Date.now();
    const notes = machines.flatMap((m) => [...problems(m), ...jobsLine(m, now)]);
    if (notes.length > 0) out += notes.map((n) => `  ${n}\n`).join('');
    out += '\n';
    out += packageTable(machines);
  }
  out += trainingTable(jobs);
  out += pipelineTable(pipelines);
  out += modelTable(models);
  if (cards.length === 0 && machines.length === 0) return `${out}No machine is managed yet (run \`fleetform apply\`).\n`;
  if (cards.length === 0) return `${out}No registry module runs on these machines.\n`;
  const rows = [['STACK', 'MACHINE', 'MODULE', 'MODULE ID', 'POLICY', 'RUNS', 'LATEST', 'POLICY ADMITS LATEST']];
  for (const c of cards) {
    const unread = c.registryError !== undefined;
    rows.push([
      c.stack,
      c.machine,
      moduleCell(c),
      c.moduleId,
      c.policy,
      unread ? 'ERROR' : (c.running ?? '-'),
      unread ? 'ERROR' : (c.latest ?? '-'),
      unread ? 'ERROR' : c.admitsLatest ? 'yes' : 'no',
    ]);
  }
  return out + formatTable(rows);
}

function toJson({ machines, cards, jobs, pipelines, models }: StatusView): string {
  const modules = cards.map(({ registryError, ...c }) => ({ ...c, ...(registryError ? { registryError: registryError.message } : {}) }));
  const extra = {
    ...(jobs.length > 0 ? { trainingJobs: jobs } : {}),
    ...(pipelines.length > 0 ? { dataPipelines: pipelines } : {}),
    ...(models.length > 0 ? { models } : {}),
  };
  return `${JSON.stringify({ machines, modules, ...extra }, null, 2)}\n`;
}

/** `fleetform status`: each machine's health, each module's card, each training job and data pipeline, once or refreshed with --watch. */
export async function runStatus(opts: StatusOptions): Promise<void> {
  const intervalMs = parseDuration(opts.interval, '--interval', { minimumMs: 100 });
  if (opts.watch && opts.json)
    throw new InputError('--watch and --json cannot be combined', { path: '--watch', hint: 'poll `fleetform status --json` instead' });
  const backend = await projectBackend(process.cwd());
  const names = opts.stack && opts.stack.length > 0 ? opts.stack : await backend.stacks();
  const connection = await openConnection({ cwd: process.cwd(), env: process.env });
  let stop = false;
  let wake = (): void => undefined;
  const onSignal = (): void => {
    stop = true;
    wake();
  };
  if (opts.watch) process.once('SIGINT', onSignal);
  try {
    for (;;) {
      const states = await Promise.all(names.map((n) => backend.read(n)));
      const [machines, cards, jobs, pipelines] = await Promise.all([
        machineHealth(connection.client, states),
        machineRuns(connection.client, states).then((runs) => moduleCards(connection.client, states, runs)),
        trainingProgress(connection.client, states),
        pipelineRuns(connection.client, states),
      ]);
      const models = await withFailedTraining(connection.client, modelHistories(states), jobs);
      const view = { machines, cards, jobs, pipelines, models };
      const text = opts.json ? toJson(view) : statusText(machines, cards, jobs, pipelines, models);
      if (opts.watch && process.stdout.isTTY) process.stdout.write('\x1b[H\x1b[2J');
      process.stdout.write(opts.watch ? `${new Date().toISOString()}\n${text}` : text);
      // A registry that could not be read is an error, never shown as a module without versions.
      const failures = new Map(cards.flatMap((c) => (c.registryError ? [[c.moduleId, c.registryError] as const] : [])));
      for (const error of failures.values()) process.stderr.write(`error: ${error.format()}\n`);
      if (failures.size > 0) process.exitCode = 1;
      if (!opts.watch || stop) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, intervalMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (stop) return;
      if (!process.stdout.isTTY) process.stdout.write('\n');
    }
  } finally {
    process.off('SIGINT', onSignal);
    await connection.close();
  }
}
