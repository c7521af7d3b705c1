/**
 * Which machines a fragment's rollout stages, in which waves, and when a plan has one: from
 * a synthesized stack and the plan's changes as the planner writes them.
 */
import { Fragment, FragmentTag, Machine, Rollout } from '../../src';
import { parseStackDocument } from '../../src/engine/desired/read-stacks';
import type { ResourceChange } from '../../src/engine/plan-model';
import { isFragmentPinChange, planFragmentRollouts, rolloutPlanLines } from '../../src/engine/rollout/plan';
import { newStack } from '../constructs/helpers';

function fleet() {
  const { stack } = newStack('fleet');
  const rig = new Fragment(stack, 'rig', { name: 'sensor-rig' });
  new FragmentTag(stack, 'rig-stable', { fragment: rig, tag: 'stable' });
  new FragmentTag(stack, 'rig-old', { fragment: rig, tag: 'old', revision: '1' });
  const canary = new Machine(stack, 'canary').useFragment(rig, { version: 'stable' });
  new Machine(stack, 'follower').useFragment(rig);
  new Machine(stack, 'on-stable').useFragment(rig, { version: 'stable', prefix: 'front' });
  new Machine(stack, 'pinned').useFragment(rig, { version: '3' });
  new Machine(stack, 'on-old').useFragment(rig, { version: 'old' });
  new Machine(stack, 'new-one').useFragment(rig);
  new Machine(stack, 'bare');
  new Rollout(stack, 'rig-careful', { fragment: rig, waves: [{ machines: [canary] }, { fraction: 1 }] });
  return parseStackDocument('fleet', JSON.parse(JSON.stringify(stack.toTerraform())));
}

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
    after: address === 'fleetform_fragment.rig' ? { name: 'sensor-rig' } : {},
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

test("a change of the fragment's config stages the stack's machines following it (latest or a tag following it), in the policy's waves", () => {
  const stack = fleet();
  const plans = planFragmentRollouts(
    [stack],
    [
      change('fleetform_fragment.rig', 'update', ['config.modules.sensors.version'], { revision: '4', machines: '9' }),
      change('fleetform_fragment_tag.rig-stable', 'update', ['revision']),
      change('fleetform_machine.new-one', 'create'),
    ],
  );
  expect(plans).toHaveLength(1);
  const plan = plans[0];
  expect(plan?.fragment).toEqual({
    address: 'fleetform_fragment.rig',
    name: 'sensor-rig',
    tags: [{ address: 'fleetform_fragment_tag.rig-stable', tag: 'stable' }],
    from_revision: '4',
    unstaged: 6,
  });
  expect(plan?.waves.map((w) => w.machines.map((m) => `${m.name}:${m.follows ?? '?'}`))).toEqual([
    ['canary:stable'],
    ['follower:', 'on-stable:stable'],
  ]);
  const text = rolloutPlanLines(plans).join('\n');
  expect(text).toContain(
    "Rollout rig-careful (stack fleet): fragment sensor-rig's new revision (from revision 4) reaches 3 machine(s) in 2 wave(s)",
  );
  expect(text).toContain('after the last wave the tag(s) stable move to it and the pins are lifted');
  expect(text).toContain('6 other machine(s) import it outside the waves');
  expect(text).toContain('wave 2 (fraction 1): follower (latest), on-stable (tag stable)');
});

test('a saved revision still to reach the machines (a tag to move, a pin to lift) is planned as that revision; nothing pending plans nothing', () => {
  const stack = fleet();
  const pending = planFragmentRollouts(
    [stack],
    [
      change('fleetform_fragment.rig', 'no-op', [], { revision: '5', machines: '3' }),
      change('fleetform_machine.follower', 'update', ['config.fragments[0].version']),
    ],
  );
  expect(pending[0]?.fragment).toMatchObject({ from_revision: '5', to_revision: '5' });
  expect(rolloutPlanLines(pending).join('\n')).toContain("fragment sensor-rig's revision 5 reaches 4 machine(s)");
  expect(planFragmentRollouts([stack], [change('fleetform_fragment.rig', 'no-op', [], { revision: '5' })])).toEqual([]);
  // A rename alone saves no config to roll out.
  expect(planFragmentRollouts([stack], [change('fleetform_fragment.rig', 'update', ['name'], { revision: '5' })])).toEqual([]);
  expect(planFragmentRollouts([stack], [change('fleetform_fragment.rig', 'replace', ['config.modules'], { revision: '5' })])).toEqual([]);
});

test("a machine change that is only a fragment import's version is a pin the rollout lifts; any other change is the machine's own", () => {
  expect(isFragmentPinChange(change('fleetform_machine.follower', 'update', ['config.fragments[0].version']))).toBe(true);
  expect(
    isFragmentPinChange(
      change('fleetform_machine.follower', 'update', ['config.fragments[0].version', 'config.components.board.attributes.pin']),
    ),
  ).toBe(false);
  expect(isFragmentPinChange(change('fleetform_machine.follower', 'update', []))).toBe(false);
  expect(isFragmentPinChange(change('fleetform_fragment_tag.rig-stable', 'update', ['config.fragments[0].version']))).toBe(false);
});
