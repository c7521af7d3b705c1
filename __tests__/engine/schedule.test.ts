/**
 * The schedules an apply runs, built from a plan's changes, its rollouts and any interrupted
 * run's journal: which writes, in which waves, behind which gate.
 */
import { Fragment, FragmentTag, Machine, Rollout } from '../../src';
import {
  fragmentRolloutSchedule,
  plainSchedule,
  scheduledWrites,
  stackRolloutSchedule,
  stackSchedules,
  waitingAddresses,
} from '../../src/engine/apply/schedule';
import { parseStackDocument } from '../../src/engine/desired/read-stacks';
import type { RolloutPlan, RolloutPolicy } from '../../src/domain/rollout';
import type { ResourceChange } from '../../src/engine/plan-model';
import type { RolloutJournal } from '../../src/engine/state/rollout-journal';
import { planFragmentRollouts, planRollouts } from '../../src/engine/rollout/plan';
import { newStack } from '../constructs/helpers';

function change(
  address: string,
  action: ResourceChange['action'],
  paths: string[] = [],
  facts: Record<string, string> = {},
): ResourceChange {
  const type = address.split('.')[0] ?? '';
  return {
    stack: 'fleet',
    address,
    type,
    action,
    before: {},
    after: {},
    changes: paths.map((path) => ({ path, kind: 'change', before: 1, after: 2 })),
    drift: [],
    vanished: false,
    replaceReasons: [],
    replaceOrder: 'create-first',
    notes: [],
    problems: [],
    facts,
    sensitivePaths: [],
    dependsOn: [],
    observedVersion: null,
  };
}

/** A stack with a machine rollout (canary first, then the rest) and a fragment rollout over the machines importing `rig`. */
function fleet() {
  const { stack } = newStack('fleet');
  const rig = new Fragment(stack, 'rig', { name: 'sensor-rig' });
  new FragmentTag(stack, 'rig-stable', { fragment: rig, tag: 'stable' });
  const canary = new Machine(stack, 'canary', { name: 'canary' });
  new Machine(stack, 'worker', { name: 'worker' });
  const follower = new Machine(stack, 'follower', { name: 'follower' }).useFragment(rig);
  new Machine(stack, 'on-stable', { name: 'on-stable' }).useFragment(rig, { version: 'stable' });
  new Rollout(stack, 'careful', { waves: [{ machines: [canary] }, { fraction: 1 }] });
  new Rollout(stack, 'rig-careful', { fragment: rig, waves: [{ machines: [follower] }, { fraction: 1 }] });
  return parseStackDocument('fleet', JSON.parse(JSON.stringify(stack.toTerraform())));
}

const addresses = (changes: readonly ResourceChange[]): string[] => changes.map((c) => c.address);

function journal(plan: RolloutPlan, wave: number, fragmentRevisions: { from?: string; to?: string } = {}): RolloutJournal {
  const fragment = plan.fragment
    ? {
        fragment: {
          ...plan.fragment,
          id: 'frag-1',
          ...(fragmentRevisions.from ? { from_revision: fragmentRevisions.from } : {}),
          ...(fragmentRevisions.to ? { to_revision: fragmentRevisions.to } : {}),
        },
      }
    : {};
  return {
    format: 1,
    stack: plan.stack,
    status: 'running',
    started_at: '2026-11-27T10:00:00.000Z',
    updated_at: '2026-11-27T10:05:00.000Z',
    wave,
    plan: {
      stack: plan.stack,
      policy: plan.policy,
      waves: plan.waves.map((w) => ({ rule: w.rule, machines: w.machines.map((m) => ({ ...m })) })),
      ...fragment,
    },
    machines: [],
  };
}

describe('schedule builders', () => {
  test('a plain apply is one wave of every change, behind no gate', () => {
    const changes = [change('fleetform_machine.canary', 'update'), change('fleetform_location.site', 'create')];
    const s = plainSchedule('fleet', changes);
    expect(s).toMatchObject({ kind: 'apply', stack: 'fleet', waves: [], trail: [], gate: { kind: 'none' }, afterCleanRun: false });
    expect(addresses(s.lead)).toEqual(['fleetform_machine.canary', 'fleetform_location.site']);
    expect(addresses(scheduledWrites(s))).toEqual(addresses(changes));
  });

  test("a stack's rollout writes its other changes first, then each wave's machine updates behind the policy's health gate", () => {
    const stack = fleet();
    const changes = [
      change('fleetform_machine.canary', 'update'),
      change('fleetform_machine.worker', 'update'),
      change('fleetform_location.site', 'create'),
    ];
    const [rollout] = planRollouts([stack], changes);
    const s = stackRolloutSchedule('fleet', changes, rollout, undefined);
    expect(s.kind).toBe('stack-rollout');
    expect(addresses(s.lead)).toEqual(['fleetform_location.site']);
    expect(s.waves.map((w) => [w.rule, addresses(w.writes)])).toEqual([
      ['machines fleetform_machine.canary', ['fleetform_machine.canary']],
      ['fraction 1', ['fleetform_machine.worker']],
    ]);
    expect(s.gate).toMatchObject({ kind: 'health', journalKey: 'fleet', resume: undefined, rollout: { policy: { name: 'careful' } } });
    expect(s.write).toEqual({ kind: 'config' });
    expect(s.afterCleanRun).toBe(false);
  });

  test('without a planned rollout an interrupted one goes on with its own waves; with neither, the apply is plain', () => {
    const stack = fleet();
    const [rollout] = planRollouts([stack], [change('fleetform_machine.canary', 'update'), change('fleetform_machine.worker', 'update')]);
    if (!rollout) throw new Error('no rollout planned');
    const interrupted = journal(rollout, 2);
    const resumed = stackRolloutSchedule('fleet', [], undefined, interrupted);
    expect(resumed.gate).toMatchObject({ kind: 'health', resume: interrupted, rollout: interrupted.plan });
    expect(resumed.waves.map((w) => w.writes)).toEqual([[], []]);
    expect(stackRolloutSchedule('fleet', [change('fleetform_machine.canary', 'update')], undefined, undefined).kind).toBe('apply');
  });

  test("a fragment's rollout saves the fragment first, pins each wave's machines behind the gate, then moves its tags; it waits for a clean run", () => {
    const stack = fleet();
    const changes = [
      change('fleetform_fragment.rig', 'update', ['config.modules'], { revision: '4' }),
      change('fleetform_fragment_tag.rig-stable', 'update', ['revision']),
    ];
    const [rollout] = planFragmentRollouts([stack], changes);
    if (!rollout) throw new Error('no fragment rollout planned');
    const s = fragmentRolloutSchedule('fleet', changes, rollout, undefined);
    expect(s.kind).toBe('fragment-rollout');
    expect(addresses(s.lead)).toEqual(['fleetform_fragment.rig']);
    expect(s.waves.map((w) => [w.machines.map((m) => m.name), w.writes])).toEqual([
      [['follower'], []],
      [['on-stable'], []],
    ]);
    expect(addresses(s.trail)).toEqual(['fleetform_fragment_tag.rig-stable']);
    expect(s.write).toEqual({ kind: 'fragment-pin', savesRevision: true });
    expect(s.gate).toMatchObject({ kind: 'health', journalKey: 'fleet~rig-careful' });
    expect(s.afterCleanRun).toBe(true);
    expect(waitingAddresses(s)).toEqual(['fleetform_fragment.rig', 'fleetform_fragment_tag.rig-stable']);
  });

  test('a fragment rollout whose interrupted run saved the revision writes the fragment no more and goes on with its journal', () => {
    const stack = fleet();
    const changes = [change('fleetform_fragment.rig', 'update', ['config.modules'], { revision: '4' })];
    const [rollout] = planFragmentRollouts([stack], changes);
    if (!rollout) throw new Error('no fragment rollout planned');
    const saved = journal(rollout, 2, { from: '4', to: '5' });
    const s = fragmentRolloutSchedule('fleet', changes, { ...rollout, resumes: { wave: 2, startedAt: saved.started_at } }, saved);
    expect(s.lead).toEqual([]);
    expect(s.write).toEqual({ kind: 'fragment-pin', savesRevision: false });
    expect(s.gate).toMatchObject({ kind: 'health', resume: saved, rollout: { fragment: { to_revision: '5' }, resumes: { wave: 2 } } });
    const unsaved = fragmentRolloutSchedule('fleet', changes, rollout, journal(rollout, 1, { from: '4' }));
    expect(addresses(unsaved.lead)).toEqual(['fleetform_fragment.rig']);
  });

  test('a revision saved before (by a rollout that stopped) is rolled out as it is: nothing of the fragment is written again', () => {
    const stack = fleet();
    const changes = [
      change('fleetform_fragment.rig', 'no-op', [], { revision: '5' }),
      change('fleetform_machine.follower', 'update', ['config.fragments[0].version']),
    ];
    const [rollout] = planFragmentRollouts([stack], changes);
    if (!rollout) throw new Error('no fragment rollout planned');
    const s = fragmentRolloutSchedule('fleet', changes, rollout, undefined);
    expect(s.lead).toEqual([]);
    expect(s.write).toEqual({ kind: 'fragment-pin', savesRevision: false });
  });

  test("a stack's schedules: its own changes (less what its fragment rollouts write) first, then each fragment rollout", () => {
    const stack = fleet();
    const changes = [
      change('fleetform_machine.canary', 'update'),
      change('fleetform_fragment.rig', 'update', ['config.modules'], { revision: '4' }),
      change('fleetform_fragment_tag.rig-stable', 'update', ['revision']),
      change('fleetform_machine.follower', 'update', ['config.fragments[0].version']),
    ];
    const planned = [...planRollouts([stack], changes), ...planFragmentRollouts([stack], changes)];
    const schedules = stackSchedules(stack, changes, planned, new Map());
    expect(schedules.map((s) => s.kind)).toEqual(['stack-rollout', 'fragment-rollout']);
    // The follower's pin change is the fragment rollout's to lift, not the stack's to write.
    expect(schedules.map((s) => addresses(scheduledWrites(s)))).toEqual([
      ['fleetform_machine.canary'],
      ['fleetform_fragment.rig', 'fleetform_fragment_tag.rig-stable'],
    ]);
  });

  test('a stack with nothing to write and no interrupted rollout has no schedule; a running journal makes one', () => {
    const stack = fleet();
    expect(stackSchedules(stack, [], [], new Map())).toEqual([]);
    const policy: RolloutPolicy = {
      name: 'careful',
      waves: [{ fraction: 1 }],
      gate: { timeout_ms: 1000, settle_ms: 0 },
      abort: {},
      offline: 'wait',
      on_failure: 'halt',
    };
    const interrupted = journal(
      { stack: 'fleet', policy, waves: [{ rule: 'fraction 1', machines: [{ address: 'fleetform_machine.worker', name: 'worker' }] }] },
      1,
    );
    const [resumed] = stackSchedules(stack, [], [], new Map([['fleet', interrupted]]));
    expect(resumed).toMatchObject({ kind: 'stack-rollout', lead: [], gate: { kind: 'health', resume: interrupted } });
  });
});
