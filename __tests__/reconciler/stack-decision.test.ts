/**
 * The reconciler's decision for a stack, gate by gate, without a loop: a plan, a policy, what
 * the stack remembers and the time in; apply, wait with a reason, or stay quiet out.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { FleetProvider, Location, Machine, ReconcilePolicy } from '../../src';
import { parseWindow, windowVerdict, type SyncWindow } from '../../src/domain/sync-windows';
import { readStacks } from '../../src/engine/desired/read-stacks';
import { resourceChange, type ResourceChange } from '../../src/engine/plan-model';
import type { RolloutJournal } from '../../src/engine/state/rollout-journal';
import { LocationWindows } from '../../src/engine/windows/location-windows';
import type { StackPolicy } from '../../src/reconciler/policy';
import { changesFingerprint } from '../../src/reconciler/policy';
import { decideStack, type StackDecisionInput } from '../../src/reconciler/stack-decision';

// Friday 27 November 2026, 10:00 UTC: inside `deny:0 9 * * *:8h`, outside `allow:0 22 * * *:6h`.
const NOW = Date.parse('2026-11-27T10:00:00Z');
const verdict = (windows: readonly SyncWindow[]) => windowVerdict(windows, NOW);

function change(address: string, fields: Partial<ResourceChange> = {}): ResourceChange {
  return resourceChange({ stack: 'fleet', address, type: 'fleetform_machine', action: 'update', replaceOrder: 'delete-first', ...fields });
}

const drifted = (address: string): ResourceChange =>
  change(address, { drift: [{ path: 'config.modules[0].version', kind: 'change', before: '1.2.0', after: '1.3.0' }] });

const policy = (fields: Partial<StackPolicy> = {}): StackPolicy => ({ apply: 'auto', drift: 'heal', windows: [], ...fields });

function input(fields: Partial<StackDecisionInput> = {}): StackDecisionInput {
  return {
    stack: 'fleet',
    policy: policy(),
    changes: [change('fleetform_machine.a')],
    drifted: [],
    problems: [],
    journal: undefined,
    rollouts: [],
    maxDestroy: 10,
    memory: {},
    verdict,
    locations: undefined,
    now: NOW,
    ...fields,
  };
}

test('a plan with problems is refused, whatever else holds', () => {
  const d = decideStack(input({ problems: ['fleetform_machine.a: unknown module version "~2"'], policy: policy({ apply: 'approve' }) }));
  expect(d).toEqual({ kind: 'refuse', problems: ['fleetform_machine.a: unknown module version "~2"'] });
});

test('nothing to apply is quiet; a running rollout is resumed though nothing else changes', () => {
  expect(decideStack(input({ changes: [] }))).toEqual({ kind: 'quiet', why: 'nothing-to-apply' });
  const journal = { status: 'running' } as RolloutJournal;
  expect(decideStack(input({ changes: [], journal }))).toMatchObject({ kind: 'apply', writable: [] });
});

/** A journal of the stack's rollout `careful`, held as `status` says. */
function heldJournal(status: 'paused' | 'waiting', hold: RolloutJournal['hold'], fragment = false): RolloutJournal {
  return {
    stack: 'fleet',
    status,
    wave: 2,
    hold,
    plan: {
      stack: 'fleet',
      policy: {
        name: fragment ? 'rig-careful' : 'careful',
        pacing: { schedule: { stop_by: '2026-11-27T09:00:00.000Z', at_stop: 'pause' } },
      },
      waves: [],
      ...(fragment ? { fragment: { address: 'fleetform_fragment.rig', name: 'rig', tags: [] } } : {}),
    },
  } as unknown as RolloutJournal;
}

describe('a rollout its pacing holds', () => {
  const since = '2026-11-27T09:30:00.000Z';

  test('paused by a pause step: the stack waits for a release naming `rollout resume`, with or without other changes', () => {
    const journal = heldJournal('paused', { kind: 'pause-step', wave: 2, since });
    const reason =
      'rollout careful is paused: a pause step holds it before wave 2; release it with `fleetform rollout resume fleet`, and the next cycle goes on';
    expect(decideStack(input({ journal }))).toMatchObject({ kind: 'wait', for: 'release', reason });
    expect(decideStack(input({ journal, changes: [] }))).toMatchObject({ kind: 'wait', for: 'release', reason });
    // The same wait each cycle: announced once while it lasts.
    const again = decideStack(input({ journal }));
    expect(again.kind === 'wait' && again.fingerprint).toBe(changesFingerprint([change('fleetform_machine.a')]));
    expect(again).not.toHaveProperty('wakeAt');
  });

  test("paused by its schedule's stop, or a fragment rollout paused: the release names it", () => {
    const stop = decideStack(input({ journal: heldJournal('paused', { kind: 'stop-by', wave: 2, since }) }));
    expect(stop).toMatchObject({
      for: 'release',
      reason: expect.stringContaining("its schedule's stop (2026-11-27T09:00:00.000Z) holds it at wave 2"),
    });
    const fragment = decideStack(
      input({ journal: undefined, fragmentJournals: [heldJournal('paused', { kind: 'pause-step', wave: 2, since }, true)] }),
    );
    expect(fragment).toMatchObject({
      for: 'release',
      reason: expect.stringContaining('`fleetform rollout resume fleet --rollout rig-careful`'),
    });
  });

  test("waiting for its schedule's start: the stack waits until then and wakes at it; once due it goes on with nothing else to apply", () => {
    const until = '2026-11-27T11:00:00.000Z';
    const journal = heldJournal('waiting', { kind: 'not-before', wave: 2, since, until });
    expect(decideStack(input({ journal, changes: [] }))).toMatchObject({
      kind: 'wait',
      for: 'schedule',
      reason: `rollout careful starts wave 2 at ${until}, as its schedule says; it goes on then`,
      wakeAt: Date.parse(until),
    });
    const due = decideStack(input({ journal, changes: [], now: Date.parse(until) }));
    expect(due).toMatchObject({ kind: 'apply', writable: [] });
    // Due, it still passes the stack's other gates.
    const closed = decideStack(input({ journal, now: Date.parse(until), policy: policy({ apply: 'approve' }) }));
    expect(closed).toMatchObject({ kind: 'wait', for: 'approval' });
  });

  test('a completed or stopped journal holds nothing', () => {
    for (const status of ['completed', 'stopped'] as const) {
      const journal = { ...heldJournal('paused', undefined), status } as RolloutJournal;
      expect(decideStack(input({ journal, changes: [] }))).toEqual({ kind: 'quiet', why: 'nothing-to-apply' });
    }
  });
});

test('drift warn and off leave drifted objects as they are; heal puts them back', () => {
  const changes = [drifted('fleetform_machine.a'), change('fleetform_machine.b')];
  const warn = decideStack(input({ changes, drifted: ['fleetform_machine.a'], policy: policy({ drift: 'warn' }) }));
  expect(warn).toMatchObject({ kind: 'apply', healOnly: false, healing: [] });
  expect(warn.kind === 'apply' && warn.writable.map((c) => c.address)).toEqual(['fleetform_machine.b']);
  const off = decideStack(
    input({ changes: [changes[0] as ResourceChange], drifted: ['fleetform_machine.a'], policy: policy({ drift: 'off' }) }),
  );
  expect(off).toEqual({ kind: 'quiet', why: 'nothing-to-apply' });
  const heal = decideStack(input({ changes, drifted: ['fleetform_machine.a'] }));
  expect(heal).toMatchObject({ kind: 'apply', healOnly: false, healing: ['fleetform_machine.a'] });
});

test('plan-only reports a change of the code, and heals drift when its drift policy is heal', () => {
  expect(decideStack(input({ policy: policy({ apply: 'plan-only' }) }))).toEqual({ kind: 'quiet', why: 'plan-only' });
  const heal = decideStack(
    input({ changes: [drifted('fleetform_machine.a')], drifted: ['fleetform_machine.a'], policy: policy({ apply: 'plan-only' }) }),
  );
  expect(heal).toMatchObject({ kind: 'apply', healOnly: true, healing: ['fleetform_machine.a'] });
});

test('a rollout stopped on this commit waits for a new commit or a retry', () => {
  const d = decideStack(input({ memory: { stoppedText: 'rollout fleet stopped at wave 1 on this commit (picker-2 failed)' } }));
  expect(d).toMatchObject({
    kind: 'wait',
    for: 'retry',
    reason:
      'rollout fleet stopped at wave 1 on this commit (picker-2 failed); a new commit or `fleetform reconcile approve fleet` retries it',
  });
});

test('approve waits for an approval of exactly these changes; a repair of drift needs none', () => {
  const changes = [change('fleetform_machine.a'), change('fleetform_machine.b', { action: 'create' })];
  const asked = decideStack(input({ changes, policy: policy({ apply: 'approve' }) }));
  expect(asked).toMatchObject({ kind: 'wait', for: 'approval', reason: "the stack's policy is approve", summary: { add: 1, change: 1 } });
  const approved = decideStack(input({ changes, policy: policy({ apply: 'approve' }), memory: { approved: changesFingerprint(changes) } }));
  expect(approved).toMatchObject({ kind: 'apply' });
  const other = decideStack(
    input({ changes, policy: policy({ apply: 'approve' }), memory: { approved: changesFingerprint(changes.slice(1)) } }),
  );
  expect(other).toMatchObject({ kind: 'wait', for: 'approval' });
  const heal = decideStack(
    input({ changes: [drifted('fleetform_machine.a')], drifted: ['fleetform_machine.a'], policy: policy({ apply: 'approve' }) }),
  );
  expect(heal).toMatchObject({ kind: 'apply', healOnly: true });
});

test('destroying more than --max-destroy waits for an approval whatever the policy', () => {
  const changes = ['a', 'b', 'c'].map((n) => change(`fleetform_machine.${n}`, { action: 'delete' }));
  expect(decideStack(input({ changes, maxDestroy: 2 }))).toMatchObject({
    kind: 'wait',
    for: 'approval',
    reason: 'it destroys 3 object(s), more than --max-destroy 2',
  });
  expect(decideStack(input({ changes, maxDestroy: 3 }))).toMatchObject({ kind: 'apply' });
});

test("the stack's windows: a closed one waits with its reason, an open one lets the changes through", () => {
  const closed = decideStack(input({ policy: policy({ windows: [parseWindow('deny:0 9 * * *:8h')] }) }));
  expect(closed).toMatchObject({ kind: 'wait', for: 'window', reason: 'inside the deny window deny:0 9 * * *:8h' });
  expect(closed.kind === 'wait' && closed.locations).toBeFalsy();
  const open = decideStack(input({ policy: policy({ windows: [parseWindow('deny:0 22 * * *:6h')] }) }));
  expect(open).toMatchObject({ kind: 'apply' });
});

describe("locations' windows", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ff-stack-decision-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function fleetWithLocations(): Promise<{ locations: (changes: ResourceChange[]) => LocationWindows; n1: string; s1: string }> {
    const app = new App({ outdir: dir });
    const stack = new TerraformStack(app, 'fleet');
    new FleetProvider(stack, 'cloud', {});
    const north = new Location(stack, 'north', { name: 'north' });
    const south = new Location(stack, 'south', { name: 'south' });
    new Machine(stack, 'n1', { name: 'n1', location: north });
    new Machine(stack, 's1', { name: 's1', location: south });
    new ReconcilePolicy(stack, 'reconcile', { locations: [{ location: south, windows: ['deny:0 9 * * *:8h'] }] });
    app.synth();
    const stacks = await readStacks(dir);
    const address = (id: string): string => stacks[0]?.resources.find((r) => r.name === id)?.address ?? id;
    return { locations: (changes) => new LocationWindows(stacks, new Map(), changes), n1: address('n1'), s1: address('s1') };
  }

  test('a closed location holds its machines while the rest applies', async () => {
    const { locations, n1, s1 } = await fleetWithLocations();
    const changes = [change(n1), change(s1)];
    const d = decideStack(input({ changes, locations: locations(changes) }));
    expect(d).toMatchObject({ kind: 'apply', held: [{ location: 'south', machines: [s1] }] });
    expect(d.kind === 'apply' && d.writable.map((c) => c.address)).toEqual([n1]);
  });

  test('when only held machines are left, the stack waits on their location', async () => {
    const { locations, s1 } = await fleetWithLocations();
    const changes = [change(s1)];
    const d = decideStack(input({ changes, locations: locations(changes) }));
    expect(d).toMatchObject({
      kind: 'wait',
      for: 'window',
      reason: '1 machine(s) of location south wait: inside the deny window deny:0 9 * * *:8h',
      locations: { held: [{ location: 'south', machines: [s1] }] },
    });
  });
});
