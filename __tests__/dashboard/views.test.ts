import { randomBytes } from 'node:crypto';
import { historyDiffs, maskedConfigView, secretTexts, withoutSecrets } from '../../src/dashboard/machine-detail';
import { driftOf, planLines, planView } from '../../src/dashboard/plan-view';
import { declaresRollout, rolloutView, ruleByNames } from '../../src/dashboard/rollout-view';
import { rolloutChanges } from '../../src/dashboard/rollout-changes';
import { encodeFleet } from '../../src/dashboard/fleet-table';
import { updatesBetween } from '../../src/dashboard/updates';
import type { Plan, ResourceChange } from '../../src/engine/plan-model';
import type { RolloutJournal } from '../../src/engine/state/rollout-journal';
import { maskValue } from '../../src/engine/mask';
import { machineRow, snapshotOf } from './fake-source';

const SECRET = 'view-Secret-2Hn6';

function journal(over: Partial<RolloutJournal>): RolloutJournal {
  const machine = (name: string) => ({ address: `fleetform_machine.${name}`, name });
  const record = (name: string, result: RolloutJournal['machines'][number]['result']) => ({
    ...machine(name),
    part_id: `part-${name}`,
    baseline_revision: 'r1',
    written_revision: 'r2',
    result,
    prior: {
      type: 'fleetform_machine',
      ids: {},
      outputs: {},
      attributes: {},
      dependencies: [],
      private: {},
      sensitive_paths: [],
      status: 'ok' as const,
    },
  });
  return {
    format: 1,
    stack: 'fleet',
    status: 'running',
    started_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:05.000Z',
    wave: 2,
    plan: {
      stack: 'fleet',
      policy: {
        name: 'careful',
        waves: [{ count: 1 }],
        gate: { timeout_ms: 1000, settle_ms: 0 },
        abort: {},
        offline: 'wait',
        on_failure: 'rollback',
      },
      waves: [
        { rule: 'machines fleetform_machine.picker-2', machines: [machine('picker-2')] },
        { rule: 'fraction 0.5', machines: [machine('picker-1'), machine('picker-3')] },
        { rule: 'fraction 1', machines: [machine('picker-4')] },
      ],
    },
    machines: [record('picker-2', 'healthy'), record('picker-1', 'written')],
    ...over,
  };
}

test('a running rollout: waves done, current and pending, each machine in its state', () => {
  const v = rolloutView(journal({}), new Map(), false);
  expect(v.waves.map((w) => w.phase)).toEqual(['done', 'current', 'pending']);
  expect(v.waves.flatMap((w) => w.machines.map((m) => `${m.name} ${m.state}`))).toEqual([
    'picker-2 healthy',
    'picker-1 written',
    'picker-3 not reached',
    'picker-4 waiting',
  ]);
  expect(v).toMatchObject({ key: 'fleet', status: 'running', abortable: true, resumable: true });
  expect(rolloutView(journal({}), new Map(), true).resumable).toBe(false);
});

test("each measurement of a wave's analysis shows under its wave as it comes, and is an event once", () => {
  const measurement = (at: string, result: 'pass' | 'fail', value: number) => ({
    wave: 1,
    analysis: 'picks',
    at,
    result,
    value,
    baseline: 100,
    machines: [{ machine: 'picker-2', value }],
    why: `mean of counter.Readings picks_per_hour ${value}`,
  });
  const first = journal({ analysis: [measurement('2026-01-01T00:00:02.000Z', 'pass', 99.5)] });
  const v1 = rolloutView(first);
  expect(v1.waves[0]?.analysis).toEqual([
    {
      analysis: 'picks',
      at: '2026-01-01T00:00:02.000Z',
      result: 'pass',
      value: '99.5',
      baseline: '100',
      why: 'mean of counter.Readings picks_per_hour 99.5',
    },
  ]);
  expect(v1.waves[1]?.analysis).toBeUndefined();
  const second = journal({
    analysis: [measurement('2026-01-01T00:00:02.000Z', 'pass', 99.5), measurement('2026-01-01T00:00:03.000Z', 'fail', 70.25)],
  });
  const v2 = rolloutView(second);
  expect(v2.waves[0]?.analysis?.map((m) => `${m.result} ${m.value}`)).toEqual(['pass 99.5', 'fail 70.25']);
  expect(rolloutChanges(v1, v2)).toEqual([
    {
      kind: 'rollout',
      level: 'error',
      stack: 'fleet',
      at: '2026-01-01T00:00:03.000Z',
      message:
        'rollout careful (stack fleet): wave 1: analysis picks FAIL 70.25 (baseline 100): mean of counter.Readings picks_per_hour 70.25',
    },
  ]);
  expect(rolloutChanges(v2, v2)).toEqual([]);
});

test('a stopped rollout: its failed machine shows why and its log line even once rolled back; later waves were not reached', () => {
  const j = journal({
    status: 'stopped',
    wave: 1,
    reason: '1 of 1 failed',
    machines: [journal({}).machines[0]!].map((m) => ({ ...m, result: 'rolled back' as const })),
  });
  const failures = new Map([
    [
      'fleetform_machine.picker-2',
      {
        why: 'failed its health gate',
        log: 'module acme_sensors crashed',
        problems: [{ what: 'module acme_sensors', error: 'exited with code 1' }],
      },
    ],
  ]);
  const v = rolloutView(j, failures);
  expect(v.waves.map((w) => w.phase)).toEqual(['stopped', 'not reached', 'not reached']);
  expect(v.waves[0]?.machines[0]).toEqual({
    name: 'picker-2',
    address: 'fleetform_machine.picker-2',
    state: 'rolled back',
    failed: true,
    why: 'failed its health gate',
    log: 'module acme_sensors crashed',
    problems: [{ what: 'module acme_sensors', error: 'exited with code 1' }],
  });
  expect(v.waves[1]?.machines.map((m) => m.state)).toEqual(['not reached', 'not reached']);
  // Rolled back without a known failure: it went back because another failed.
  expect(rolloutView(j).waves[0]?.machines[0]).toMatchObject({ state: 'rolled back', failed: false });

  const events = rolloutChanges(rolloutView(journal({ wave: 1, machines: [] })), v);
  expect(events.map((e) => `${e.level} ${e.message}`)).toEqual([
    'error rollout careful (stack fleet): wave 1: picker-2 failed, rolled back; log: module acme_sensors crashed',
    'warn rollout careful (stack fleet): stopped: 1 of 1 failed',
  ]);
});

function change(over: Partial<ResourceChange>): ResourceChange {
  return {
    stack: 'fleet',
    address: 'fleetform_machine.picker-1',
    type: 'fleetform_machine',
    action: 'update',
    before: null,
    after: null,
    changes: [],
    drift: [],
    vanished: false,
    replaceReasons: [],
    replaceOrder: 'delete-first',
    notes: [],
    problems: [],
    facts: {},
    sensitivePaths: ['config.modules.sensors.env.API_TOKEN'],
    dependsOn: [],
    observedVersion: null,
    ...over,
  };
}

test('drift shows each changed value, a masked value or one at a secret path as (sensitive)', () => {
  const plan: Plan = {
    formatVersion: '1.0',
    createdAt: '2026-01-01T00:00:00.000Z',
    stacks: [],
    destroy: false,
    changes: [
      change({
        drift: [
          { path: 'config.components.board-1.attributes.pins', kind: 'change', before: ['11'], after: ['7'] },
          { path: 'config.modules.sensors.env.API_TOKEN', kind: 'change', before: maskValue('a', 'salt', randomBytes(32)), after: SECRET },
          { path: 'config.modules.sensors.env.DEPLOY_TOKEN', kind: 'add', after: maskValue(SECRET, 'salt', randomBytes(32)) },
          // A whole env changed at once: the secret inside it is hidden, the rest shown.
          { path: 'config.modules.backup.env', kind: 'change', before: {}, after: { API_TOKEN: SECRET, LEVEL: 'debug' } },
        ],
        sensitivePaths: ['config.modules.sensors.env.API_TOKEN', 'config.modules.backup.env.API_TOKEN'],
      }),
      change({ address: 'fleetform_machine.picker-2', vanished: true }),
    ],
  };
  const drift = driftOf(plan);
  expect(drift.map((d) => [d.address, d.path, d.before, d.after])).toEqual([
    ['fleetform_machine.picker-1', 'config.components.board-1.attributes.pins', '["11"]', '["7"]'],
    ['fleetform_machine.picker-1', 'config.modules.sensors.env.API_TOKEN', '(sensitive)', '(sensitive)'],
    ['fleetform_machine.picker-1', 'config.modules.sensors.env.DEPLOY_TOKEN', '(none)', '(sensitive)'],
    ['fleetform_machine.picker-1', 'config.modules.backup.env', '{}', '{"API_TOKEN":"(sensitive)","LEVEL":"debug"}'],
    ['fleetform_machine.picker-2', '', 'exists', '(deleted outside fleetform)'],
  ]);
  expect(JSON.stringify(drift)).not.toContain(SECRET);
});

test('part history: secrets in the service configs are masked before the diffs, a changed secret shows as (sensitive)', () => {
  const key = randomBytes(32);
  const config = (token: string, pins: string[]) => ({
    modules: [{ type: 'registry', name: 'sensors', module_id: 'acme:sensors', version: '~1.2', env: { API_TOKEN: token, LEVEL: 'debug' } }],
    components: [{ name: 'board-1', api: 'rdk:component:board', model: 'acme:sensors:pi-board', attributes: { pins } }],
  });
  const current = maskedConfigView(config(SECRET, ['7']), undefined, key);
  const edits = [
    {
      at: '2026-01-02T00:00:00.000Z',
      editor: { editedBy: 'API key key-1' },
      before: maskedConfigView(config(SECRET, ['11']), undefined, key),
    },
    {
      at: '2026-01-01T00:00:00.000Z',
      editor: { editedBy: 'API key key-1' },
      before: maskedConfigView(config('older-Secret-0', ['11']), undefined, key),
    },
  ];
  const history = historyDiffs(current, edits);
  expect(history.map((h) => h.changes.map((c) => `${c.path}: ${c.before} -> ${c.after}`))).toEqual([
    ['config.components.board-1.attributes.pins: ["11"] -> ["7"]'],
    ['config.modules.sensors.env.API_TOKEN: (sensitive) -> (sensitive)'],
  ]);
  expect(JSON.stringify(history)).not.toMatch(/Secret/);
});

test('a secret of the part config is hidden wherever it appears in text: a module logging its env, an error quoting it', () => {
  const config = {
    modules: [
      { type: 'registry', name: 'sensors', module_id: 'acme:sensors', version: '~1.2', env: { API_TOKEN: SECRET, LEVEL: 'debug' } },
    ],
    components: [{ name: 'board-1', api: 'rdk:component:board', model: 'acme:sensors:pi-board', attributes: { pins: ['7'] } }],
  };
  const secrets = secretTexts(config, undefined);
  expect(secrets).toEqual([SECRET]);
  expect(withoutSecrets(`sensors started with env API_TOKEN=${SECRET} LEVEL=debug (${SECRET})`, secrets)).toBe(
    'sensors started with env API_TOKEN=(sensitive) LEVEL=debug ((sensitive))',
  );
  expect(withoutSecrets('pins 7 ready', secrets)).toBe('pins 7 ready');
});

test('updates between readings: one machine changed sends one row; unchanged sections send nothing', () => {
  const before = snapshotOf([machineRow(1), machineRow(2), machineRow(3)]);
  const after = snapshotOf([machineRow(1), { ...machineRow(2), health: 'behind' }, machineRow(4)]);
  const updates = updatesBetween(before, after);
  expect(updates.filter((u) => u.type !== 'status')).toEqual([
    { type: 'machines', upsert: encodeFleet(after.machines.slice(1, 3)), remove: ['fleet/m-00003'] },
  ]);
  const plan = updatesBetween(after, { ...after, planError: 'state locked' });
  expect(plan.filter((u) => u.type !== 'status')).toEqual([{ type: 'plan', planError: 'state locked' }]);
});

test('a rollout the code no longer declares is history; a machine its state no longer holds is gone, never current', () => {
  const j = journal({});
  const declared = [{ name: 'fleet', rollout: { name: 'careful' } }];
  expect(declaresRollout(declared, j)).toBe(true);
  expect(declaresRollout([{ name: 'fleet', rollout: { name: 'bolder' } }], j)).toBe(false);
  expect(declaresRollout([{ name: 'fleet' }], j)).toBe(false);
  expect(declaresRollout([{ name: 'other', rollout: { name: 'careful' } }], j)).toBe(false);
  // A fragment rollout of the same name is kept under another journal key: not this one.
  expect(declaresRollout([{ name: 'fleet', fragmentRollouts: [{ name: 'careful', fragment: 'rig' }] }], j)).toBe(false);

  const existing = new Set(['fleetform_machine.picker-2', 'fleetform_machine.picker-3', 'fleetform_machine.picker-4']);
  const v = rolloutView(j, new Map(), true, { declared: false, existing });
  expect(v.current).toBe(false);
  expect(v.waves.flatMap((w) => w.machines.map((m) => `${m.name} ${m.state}`))).toEqual([
    'picker-2 healthy',
    'picker-1 gone',
    'picker-3 not reached',
    'picker-4 waiting',
  ]);
  expect(v.waves[0]?.rule).toBe('machines picker-2');
  expect(
    ruleByNames('machines fleetform_machine.a-1, fleetform_machine.a', [
      { address: 'fleetform_machine.a', name: 'a' },
      { address: 'fleetform_machine.a-1', name: 'first' },
    ]),
  ).toBe('machines first, a');
  // Without the code known, a rollout is shown as current.
  expect(rolloutView(j).current).toBe(true);
});

test("a rollout's events carry the journal's times: its start, then its last update", () => {
  const started = rolloutChanges(undefined, rolloutView(journal({})));
  expect(started.map((e) => [e.at, e.message])).toEqual([
    ['2026-01-01T00:00:00.000Z', 'rollout careful (stack fleet): started, 3 wave(s)'],
    ['2026-01-01T00:00:05.000Z', 'rollout careful (stack fleet): wave 1: picker-2 healthy'],
    ['2026-01-01T00:00:05.000Z', 'rollout careful (stack fleet): wave 2: picker-1 written'],
  ]);
  const later = rolloutView(journal({ wave: 3, updated_at: '2026-01-01T00:01:00.000Z' }));
  expect(rolloutChanges(rolloutView(journal({})), later).map((e) => [e.at, e.message])).toEqual([
    ['2026-01-01T00:01:00.000Z', 'rollout careful (stack fleet): wave 3 of 3'],
  ]);
});

test('a plan is coloured line by line as the terminal colours it, its text plain and whole', () => {
  const plan: Plan = {
    formatVersion: '1.0',
    createdAt: '2026-01-01T00:00:00.000Z',
    stacks: [],
    destroy: false,
    changes: [
      change({
        address: 'fleetform_machine.picker-1',
        changes: [
          { path: 'config.components.board-1.attributes.pins', kind: 'change', before: ['11'], after: ['7'] },
          { path: 'config.components.cam-1', kind: 'add', after: { name: 'cam-1', note: '<script>alert(1)</script>' } },
          { path: 'config.components.old-1', kind: 'remove', before: { name: 'old-1' } },
        ],
      }),
    ],
  };
  const view = planView(plan);
  expect(view.lines.map((l) => l.text).join('\n')).toBe(view.text);
  expect(view.lines.some((l) => l.text.includes('\u001b'))).toBe(false);
  const toneOf = (start: string) => view.lines.find((l) => l.text.trimStart().startsWith(start))?.tone;
  expect(toneOf('~ config.components.board-1')).toBe('change');
  expect(toneOf('+ config.components.cam-1')).toBe('add');
  expect(toneOf('- config.components.old-1')).toBe('remove');
  expect(toneOf('~ resource')).toBe('change');
  // Markup in a value stays text: the page renders it as text nodes.
  expect(view.lines.find((l) => l.text.includes('<script>'))?.tone).toBe('add');
  expect(planLines('\u001b[31m- gone\u001b[0m\nplain \u001b[7mreverse\u001b[0m')).toEqual([
    { tone: 'remove', text: '- gone' },
    { tone: 'plain', text: 'plain reverse' },
  ]);
});
