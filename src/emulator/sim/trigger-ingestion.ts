/**
 * Which triggers what a check-in ingested fires, and what their webhooks are sent. A
 * `part_data_ingested` trigger fires on any tabular point when its `data_types` list
 * `tabular` (the simulated machines capture no binary data or files). A
 * `conditional_data_ingested` trigger fires on the first point of its capture method
 * (`subtype:name:method`, the subtype as the API's last word) that meets every eval of its
 * condition (none: every point meets it). An eval's value names the data's field by its one
 * key, nested or dotted (`{ readings: { cpu: 80 } }` is `readings.cpu` against 80): `lt`,
 * `lte`, `gt` and `gte` compare numbers, `eq` and `neq` compare JSON values, `regex` matches
 * text; a field the data lacks meets no eval. A `conditional_logs_ingested` trigger fires on
 * the lines at one of its `log_levels` (`warning` is `warn`).
 */
import { isObject } from '../../domain/json-value';
import { headerValue, type IngestionEvent } from './triggers';

/** A tabular point a check-in captured. */
export interface IngestedPoint {
  readonly resourceName: string;
  /** The API triple, e.g. `rdk:component:sensor`. */
  readonly resourceSubtype: string;
  readonly methodName: string;
  readonly time: number;
  readonly payload: Readonly<Record<string, unknown>>;
}

/** A log line a check-in wrote. */
export interface IngestedLine {
  readonly level: string;
  readonly logger: string;
  readonly message: string;
  readonly time: number;
}

export interface Ingested {
  readonly points: readonly IngestedPoint[];
  readonly lines: readonly IngestedLine[];
}

/** A trigger fired by what was ingested, with what fired it. */
export interface IngestionFiring {
  readonly triggerName: string;
  readonly event: IngestionEvent;
  /** The points (data events: all of them for part_data_ingested, the one meeting the condition otherwise). */
  readonly points: readonly IngestedPoint[];
  /** The lines at the trigger's levels (logs events). */
  readonly lines: readonly IngestedLine[];
}

/** A field's path and the value it is compared with, read from an eval's value; undefined when it names no field. */
export function evalField(value: unknown): { path: string[]; operand: unknown } | undefined {
  const path: string[] = [];
  let at = value;
  while (isObject(at) && Object.keys(at).length === 1) {
    const [key] = Object.keys(at) as [string];
    path.push(...key.split('.'));
    at = at[key];
  }
  return path.length === 0 ? undefined : { path, operand: at };
}

function fieldOf(data: unknown, path: readonly string[]): unknown {
  let at = data;
  for (const key of path) {
    if (!isObject(at) || !Object.prototype.hasOwnProperty.call(at, key)) return undefined;
    at = at[key];
  }
  return at;
}

function matches(pattern: unknown, text: unknown): boolean {
  if (typeof pattern !== 'string' || typeof text !== 'string') return false;
  try {
    return new RegExp(pattern).test(text);
  } catch {
    return false;
  }
}

/** Whether `data` meets one eval. */
export function evalHolds(e: unknown, data: unknown): boolean {
  if (!isObject(e)) return false;
  const field = evalField(e.value);
  if (field === undefined) return false;
  const actual = fieldOf(data, field.path);
  if (actual === undefined) return false;
  const { operand } = field;
  const numbers = typeof actual === 'number' && typeof operand === 'number';
  switch (e.operator) {
    case 'lt':
      return numbers && actual < operand;
    case 'lte':
      return numbers && actual <= operand;
    case 'gt':
      return numbers && actual > operand;
    case 'gte':
      return numbers && actual >= operand;
    case 'eq':
      return JSON.stringify(actual) === JSON.stringify(operand);
    case 'neq':
      return JSON.stringify(actual) !== JSON.stringify(operand);
    case 'regex':
      return matches(operand, actual);
    default:
      return false;
  }
}

/** Whether a point is of a capture method written `subtype:name:method`. */
export function ofCaptureMethod(point: IngestedPoint, method: unknown): boolean {
  if (typeof method !== 'string') return false;
  const parts = method.split(':');
  if (parts.length !== 3) return false;
  const [subtype, name, methodName] = parts;
  return point.resourceSubtype.split(':').at(-1) === subtype && point.resourceName === name && point.methodName === methodName;
}

function levelOf(level: string): string {
  return level === 'warning' ? 'warn' : level;
}

function firing(trigger: Record<string, unknown>, ingested: Ingested): Omit<IngestionFiring, 'triggerName'> | undefined {
  const event = isObject(trigger.event) ? trigger.event : undefined;
  switch (event?.type) {
    case 'part_data_ingested': {
      const types = isObject(event.data_ingested) ? event.data_ingested.data_types : undefined;
      const tabular = Array.isArray(types) && types.includes('tabular');
      return tabular && ingested.points.length > 0 ? { event: event.type, points: ingested.points, lines: [] } : undefined;
    }
    case 'conditional_data_ingested': {
      const conditional = isObject(event.conditional) ? event.conditional : {};
      const evals = isObject(conditional.condition) ? conditional.condition.evals : undefined;
      const meets = (p: IngestedPoint): boolean => !Array.isArray(evals) || evals.every((e) => evalHolds(e, p.payload));
      const point = ingested.points.find((p) => ofCaptureMethod(p, conditional.data_capture_method) && meets(p));
      return point ? { event: event.type, points: [point], lines: [] } : undefined;
    }
    case 'conditional_logs_ingested': {
      const levels = Array.isArray(event.log_levels) ? event.log_levels : [];
      const lines = ingested.lines.filter((l) => levels.includes(levelOf(l.level)));
      return lines.length > 0 ? { event: event.type, points: [], lines } : undefined;
    }
    default:
      return undefined;
  }
}

/** The enabled triggers of a config that what was ingested fires, in the config's order. */
export function ingestionFirings(triggers: unknown, ingested: Ingested): IngestionFiring[] {
  if (!Array.isArray(triggers) || (ingested.points.length === 0 && ingested.lines.length === 0)) return [];
  return triggers.flatMap((trigger: unknown) => {
    if (!isObject(trigger) || typeof trigger.name !== 'string' || trigger.disabled === true) return [];
    const fired = firing(trigger, ingested);
    return fired ? [{ triggerName: trigger.name, ...fired }] : [];
  });
}

/** The headers a data event's webhook carries beyond who the part is: the data's kind and times, and for a conditional one its source. */
export function ingestionHeaders(f: IngestionFiring): Record<string, string> {
  const [first] = f.points;
  if (first === undefined) return {};
  const times = f.points.map((p) => p.time);
  const data = {
    'Data-Type': 'tabular',
    'Min-Time-Received': new Date(Math.min(...times)).toISOString(),
    'Max-Time-Received': new Date(Math.max(...times)).toISOString(),
  };
  if (f.event !== 'conditional_data_ingested') return data;
  return {
    ...data,
    'Component-Type': headerValue(first.resourceSubtype),
    'Component-Name': headerValue(first.resourceName),
    'Method-Name': headerValue(first.methodName),
  };
}

/** A webhook's POST body: the point that met the condition, how many points were ingested, or the lines. */
export function ingestionBody(f: IngestionFiring): string {
  if (f.event === 'conditional_logs_ingested')
    return JSON.stringify({
      logs: f.lines.map((l) => ({ level: l.level, logger_name: l.logger, message: l.message, time: new Date(l.time).toISOString() })),
    });
  if (f.event === 'conditional_data_ingested') return JSON.stringify({ data: f.points[0]?.payload ?? {} });
  return JSON.stringify({ data_type: 'tabular', points: f.points.length });
}
