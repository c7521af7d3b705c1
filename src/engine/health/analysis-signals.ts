/**
 * Where an analysis's samples come from, for one machine over one window: captured readings
 * through the data service's ExportTabularData (one source of one part over the window),
 * log lines through GetRobotPartLogs (at a level, matching a pattern, within the window),
 * job runs and module failures from the machine's GetMachineStatus.
 */
import type { ServiceClient } from '../../api/client';
import { loadDataService } from '../../api/data-service';
import { loadServices } from '../../api/services';
import { DEFAULT_READING_API, type MachineSample, type Metric, type SamplePoint } from '../../domain/rollout-analysis';
import { isObject } from '../../domain/json-value';
import type { MachineStatusSource } from './machine-status-source';

/** A machine an analysis reads. */
export interface AnalysisMachine {
  readonly name: string;
  readonly partId: string;
}

export interface AnalysisWindow {
  readonly start: number;
  readonly end: number;
}

export interface AnalysisSignals {
  sample(metric: Metric, machine: AnalysisMachine, window: AnalysisWindow): Promise<MachineSample>;
}

/** The most log lines one window's read takes. */
const LOG_LINES_READ = 10_000;

function timestamp(ms: number): { seconds: bigint; nanos: number } {
  return { seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1e6 };
}

function millis(t: { seconds: bigint; nanos: number } | undefined): number {
  return t === undefined ? 0 : Number(t.seconds) * 1000 + Math.floor(t.nanos / 1e6);
}

/** A captured payload's field: under `readings` (a Readings capture), else at its top. */
export function payloadField(payload: unknown, field: string): number | undefined {
  if (!isObject(payload)) return undefined;
  const readings = isObject(payload.readings) ? payload.readings : undefined;
  const value = readings && Object.hasOwn(readings, field) ? readings[field] : payload[field];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The service's signals: the data service, the app's logs, the machines' status. */
export async function serviceSignals(client: ServiceClient, source: MachineStatusSource): Promise<AnalysisSignals> {
  const data = client.clientFor(await loadDataService());
  const app = client.clientFor((await loadServices()).app);
  const readings = async (m: Extract<Metric, { kind: 'reading' }>, machine: AnalysisMachine, w: AnalysisWindow) => {
    const points: SamplePoint[] = [];
    const rows = data.exportTabularData({
      partId: machine.partId,
      resourceName: m.resource,
      resourceSubtype: m.api ?? DEFAULT_READING_API,
      methodName: m.method,
      interval: { start: timestamp(w.start), end: timestamp(w.end) },
    });
    for await (const row of rows) {
      const value = payloadField(row.payload?.toJson(), m.field);
      if (value !== undefined) points.push({ at: millis(row.timeCaptured), value });
    }
    return points;
  };
  const logLines = async (m: Extract<Metric, { kind: 'log_rate' }>, machine: AnalysisMachine, w: AnalysisWindow) => {
    const { logs } = await app.getRobotPartLogs({
      id: machine.partId,
      levels: m.level ? [m.level] : [],
      ...(m.pattern ? { filter: m.pattern } : {}),
      start: timestamp(w.start),
      end: timestamp(w.end),
      limit: BigInt(LOG_LINES_READ),
    });
    return logs.map((l) => ({ at: millis(l.time), value: 1 }));
  };
  const fromStatus = async (
    m: Extract<Metric, { kind: 'job_failures' | 'module_failures' }>,
    machine: AnalysisMachine,
    w: AnalysisWindow,
  ) => {
    const reading = await source.status(machine.partId);
    if (!reading.reachable) return undefined;
    if (m.kind === 'job_failures') {
      const job = reading.status.jobs?.find((j) => j.name === m.job);
      return (job?.failedAt ?? []).filter((at) => at >= w.start && at < w.end).map((at) => ({ at, value: 1 }));
    }
    return reading.status.modules
      .filter((mod) => m.module === undefined || mod.name === m.module)
      .map((mod) => ({ at: w.end, value: mod.consecutiveFailures }));
  };
  return {
    async sample(metric, machine, window) {
      try {
        switch (metric.kind) {
          case 'reading':
            return { machine: machine.name, points: await readings(metric, machine, window) };
          case 'log_rate':
            return { machine: machine.name, points: await logLines(metric, machine, window) };
          default:
            return { machine: machine.name, points: await fromStatus(metric, machine, window) };
        }
      } catch {
        // A machine whose signal cannot be read reports nothing: the measurement says how many did.
        return { machine: machine.name, points: undefined };
      }
    },
  };
}
