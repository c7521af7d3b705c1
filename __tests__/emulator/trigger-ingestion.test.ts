/** Which triggers a check-in's captured points and log lines fire, and what their webhooks carry (pure). */
import {
  evalField,
  evalHolds,
  ingestionBody,
  ingestionFirings,
  ingestionHeaders,
  ofCaptureMethod,
  type Ingested,
  type IngestedPoint,
} from '../../src/emulator/sim/trigger-ingestion';
import { dueNotifications } from '../../src/emulator/sim/triggers';

const T0 = Date.parse('2026-12-01T10:00:00.000Z');

function point(cpu: number, time = T0, name = 'cpu'): IngestedPoint {
  return {
    resourceName: name,
    resourceSubtype: 'rdk:component:sensor',
    methodName: 'Readings',
    time,
    payload: { readings: { cpu, host: 'rig-7' } },
  };
}

const email = [{ type: 'email', value: 'ops@example.com' }];

describe('an eval', () => {
  test('names the field by its one key, nested or dotted, and compares as its operator says', () => {
    expect(evalField({ readings: { cpu: 80 } })).toEqual({ path: ['readings', 'cpu'], operand: 80 });
    expect(evalField({ 'readings.cpu': 80 })).toEqual({ path: ['readings', 'cpu'], operand: 80 });
    expect(evalField(80)).toBeUndefined();
    const data = point(85).payload;
    const holds = (operator: string, value: unknown): boolean => evalHolds({ operator, value }, data);
    expect([holds('gt', { readings: { cpu: 80 } }), holds('gt', { readings: { cpu: 85 } })]).toEqual([true, false]);
    expect([
      holds('gte', { readings: { cpu: 85 } }),
      holds('lt', { readings: { cpu: 90 } }),
      holds('lte', { readings: { cpu: 84 } }),
    ]).toEqual([true, true, false]);
    expect([holds('eq', { 'readings.host': 'rig-7' }), holds('neq', { 'readings.host': 'rig-7' })]).toEqual([true, false]);
    expect([holds('regex', { readings: { host: '^rig-\\d$' } }), holds('regex', { readings: { host: '^arm' } })]).toEqual([true, false]);
  });

  test('a missing field, a number compared with text, an unknown operator or a bad pattern meet nothing', () => {
    const data = point(85).payload;
    expect(evalHolds({ operator: 'neq', value: { readings: { gpu: 1 } } }, data)).toBe(false);
    expect(evalHolds({ operator: 'gt', value: { readings: { host: 3 } } }, data)).toBe(false);
    expect(evalHolds({ operator: 'between', value: { readings: { cpu: 3 } } }, data)).toBe(false);
    expect(evalHolds({ operator: 'regex', value: { readings: { host: '(' } } }, data)).toBe(false);
  });

  test('a capture method is subtype:name:method, the subtype as the API triple ends', () => {
    expect(ofCaptureMethod(point(1), 'sensor:cpu:Readings')).toBe(true);
    expect(ofCaptureMethod(point(1), 'sensor:gpu:Readings')).toBe(false);
    expect(ofCaptureMethod(point(1), 'camera:cpu:Readings')).toBe(false);
    expect(ofCaptureMethod(point(1), 'rdk:component:sensor:cpu:Readings')).toBe(false);
  });
});

describe('what fires', () => {
  const triggers = [
    { name: 'any-data', event: { type: 'part_data_ingested', data_ingested: { data_types: ['tabular'] } }, notifications: email },
    { name: 'binary-only', event: { type: 'part_data_ingested', data_ingested: { data_types: ['binary', 'file'] } }, notifications: email },
    {
      name: 'hot',
      event: {
        type: 'conditional_data_ingested',
        conditional: {
          data_capture_method: 'sensor:cpu:Readings',
          condition: { evals: [{ operator: 'gt', value: { readings: { cpu: 80 } } }] },
        },
      },
      notifications: email,
    },
    {
      name: 'every-cpu',
      event: { type: 'conditional_data_ingested', conditional: { data_capture_method: 'sensor:cpu:Readings' } },
      notifications: email,
    },
    {
      name: 'muted',
      disabled: true,
      event: { type: 'conditional_data_ingested', conditional: { data_capture_method: 'sensor:cpu:Readings' } },
      notifications: email,
    },
    { name: 'errors', event: { type: 'conditional_logs_ingested', log_levels: ['error', 'warn'] }, notifications: email },
    { name: 'offline', event: { type: 'part_offline' }, notifications: email },
  ];

  test('tabular points fire part_data_ingested listing tabular and the conditional triggers they meet; a disabled one never', () => {
    const cool: Ingested = { points: [point(40), point(50, T0 + 1000)], lines: [] };
    expect(ingestionFirings(triggers, cool).map((f) => f.triggerName)).toEqual(['any-data', 'every-cpu']);
    const hot: Ingested = { points: [point(40), point(95, T0 + 1000), point(99, T0 + 2000)], lines: [] };
    const firings = ingestionFirings(triggers, hot);
    expect(firings.map((f) => f.triggerName)).toEqual(['any-data', 'hot', 'every-cpu']);
    // The first point meeting the condition is the one sent.
    expect(firings.find((f) => f.triggerName === 'hot')?.points).toEqual([hot.points[1]]);
    expect(ingestionFirings(triggers, { points: [point(95, T0, 'gpu')], lines: [] }).map((f) => f.triggerName)).toEqual(['any-data']);
  });

  test('log lines fire the logs triggers at their levels (warning is warn), and nothing else', () => {
    const lines = [
      { level: 'info', logger: 'rdk', message: 'started', time: T0 },
      { level: 'warning', logger: 'rdk.modmanager', message: 'slow', time: T0 },
    ];
    const firings = ingestionFirings(triggers, { points: [], lines });
    expect(firings.map((f) => [f.triggerName, f.lines.map((l) => l.message)])).toEqual([['errors', ['slow']]]);
    expect(ingestionFirings(triggers, { points: [], lines: [lines[0] as never] })).toEqual([]);
    expect(ingestionFirings(triggers, { points: [], lines: [] })).toEqual([]);
    expect(ingestionFirings('not a list', { points: [point(1)], lines })).toEqual([]);
  });

  test('the webhook says where the data came from and when, and carries the point or the lines', () => {
    const hot: Ingested = { points: [point(95, T0), point(97, T0 + 2000)], lines: [] };
    const [anyData, , every] = ingestionFirings(triggers, hot);
    const conditional = ingestionFirings(triggers, hot).find((f) => f.triggerName === 'hot');
    if (!anyData || !every || !conditional) throw new Error('expected firings');
    expect(ingestionHeaders(conditional)).toEqual({
      'Data-Type': 'tabular',
      'Min-Time-Received': '2026-12-01T10:00:00.000Z',
      'Max-Time-Received': '2026-12-01T10:00:00.000Z',
      'Component-Type': 'rdk:component:sensor',
      'Component-Name': 'cpu',
      'Method-Name': 'Readings',
    });
    expect(JSON.parse(ingestionBody(conditional))).toEqual({ data: { readings: { cpu: 95, host: 'rig-7' } } });
    // A name HTTP cannot carry as it is goes percent-encoded.
    const [named] = ingestionFirings(
      [{ ...triggers[3], event: { type: 'conditional_data_ingested', conditional: { data_capture_method: 'sensor:cpü:Readings' } } }],
      {
        points: [point(1, T0, 'cpü')],
        lines: [],
      },
    );
    expect(named && ingestionHeaders(named)['Component-Name']).toBe('cp%C3%BC');
    expect(ingestionHeaders(anyData)).toEqual({
      'Data-Type': 'tabular',
      'Min-Time-Received': '2026-12-01T10:00:00.000Z',
      'Max-Time-Received': '2026-12-01T10:00:02.000Z',
    });
    expect(JSON.parse(ingestionBody(anyData))).toEqual({ data_type: 'tabular', points: 2 });
    const [logs] = ingestionFirings(triggers, { points: [], lines: [{ level: 'error', logger: 'rdk', message: 'boom', time: T0 }] });
    if (!logs) throw new Error('expected a logs firing');
    expect(ingestionHeaders(logs)).toEqual({});
    expect(JSON.parse(ingestionBody(logs))).toEqual({
      logs: [{ level: 'error', logger_name: 'rdk', message: 'boom', time: '2026-12-01T10:00:00.000Z' }],
    });
  });

  test('a fired trigger notifies as a liveness one does: at most once per seconds_between_notifications', () => {
    const spaced = [{ ...triggers[2], notifications: [{ type: 'email', value: 'ops@example.com', seconds_between_notifications: 30 }] }];
    const fired = (name: string): boolean => name === 'hot';
    expect(dueNotifications(spaced, 'conditional_data_ingested', new Map(), T0, fired)).toHaveLength(1);
    expect(dueNotifications(spaced, 'conditional_data_ingested', new Map([['hot#0', T0]]), T0 + 29_999, fired)).toEqual([]);
    expect(dueNotifications(spaced, 'conditional_data_ingested', new Map([['hot#0', T0]]), T0 + 30_000, fired)).toHaveLength(1);
    expect(dueNotifications(spaced, 'conditional_data_ingested', new Map(), T0, () => false)).toEqual([]);
  });
});
