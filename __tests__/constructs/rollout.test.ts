import { App, TerraformStack } from 'cdktf';
import { Fragment, Location, Machine, Metric, Rollout } from '../../src';
import { parseHealthGate } from '../../src/domain/rollout';
import { parseStackDocument } from '../../src/engine/desired/read-stacks';
import { newStack } from './helpers';

/** The whole stack document, its `//` block included. */
function synth(stack: TerraformStack): { '//': { fleetform_rollout: unknown } } {
  return JSON.parse(JSON.stringify(stack.toTerraform())) as { '//': { fleetform_rollout: unknown } };
}

describe('Rollout', () => {
  test('synthesizes its policy into the stack document comment block, which the engine reads back', () => {
    const { stack } = newStack();
    const lab = new Location(stack, 'lab');
    const picker1 = new Machine(stack, 'picker-1', { location: lab });
    new Machine(stack, 'picker-2');
    new Rollout(stack, 'careful', {
      waves: [{ machines: [picker1] }, { location: lab }, { location: 'loc-9' }, { count: 2 }, { fraction: 0.25 }, { fraction: 1 }],
      gate: { timeout: '10m', settle: '1m30s' },
      abort: { maxFailed: 1, maxFailedFraction: 0.1 },
      offline: 'skip',
      onFailure: 'halt',
    });
    const doc = synth(stack);
    const expected = {
      name: 'careful',
      waves: [
        { machines: ['fleetform_machine.picker-1'] },
        { location: '${fleetform_location.lab.id}' },
        { location: 'loc-9' },
        { count: 2 },
        { fraction: 0.25 },
        { fraction: 1 },
      ],
      gate: { timeout_ms: 600_000, settle_ms: 90_000 },
      abort: { max_failed: 1, max_failed_fraction: 0.1 },
      offline: 'skip',
      on_failure: 'halt',
    };
    expect(doc['//'].fleetform_rollout).toEqual(expected);
    expect(parseStackDocument('stack', doc).rollout).toEqual(expected);
  });

  test('defaults: gate 10m with 1m settle, any failure stops, offline machines are waited for, failures roll back', () => {
    const { stack } = newStack();
    new Rollout(stack, 'r', { waves: [{ fraction: 1 }] });
    expect(synth(stack)['//'].fleetform_rollout).toEqual({
      name: 'r',
      waves: [{ fraction: 1 }],
      gate: { timeout_ms: 600_000, settle_ms: 60_000 },
      abort: {},
      offline: 'wait',
      on_failure: 'rollback',
    });
  });

  test('gate.jobsSucceed is carried to the policy once per job name; an empty list is refused naming it', () => {
    const { stack } = newStack();
    new Rollout(stack, 'r', { waves: [{ fraction: 1 }], gate: { jobsSucceed: ['calibrate', 'nightly', 'calibrate'] } });
    const doc = synth(stack);
    const gate = { timeout_ms: 600_000, settle_ms: 60_000, jobs_succeed: ['calibrate', 'nightly'] };
    expect(doc['//'].fleetform_rollout).toMatchObject({ gate });
    expect(parseStackDocument('stack', doc).rollout).toMatchObject({ gate });
    expect(() => new Rollout(newStack().stack, 'e', { waves: [{ fraction: 1 }], gate: { jobsSucceed: [] } })).toThrow(/gate\.jobsSucceed/);
  });

  test('bad props are refused naming the prop', () => {
    const { stack } = newStack();
    expect(() => new Rollout(stack, 'a', { waves: [] })).toThrow(/Rollout: "waves"/);
    expect(() => new Rollout(stack, 'b', { waves: [{ fraction: 1.5 }] })).toThrow(/waves/);
    expect(() => new Rollout(stack, 'c', { waves: [{ fraction: 1 }], gate: { timeout: 'soon' } })).toThrow(
      /"gate.timeout" is not a duration: "soon"/,
    );
    expect(() => new Rollout(stack, 'd', { waves: [{ fraction: 1 }], offline: 'later' as 'wait' })).toThrow(/offline/);
    expect(() => new Rollout(stack, 'e', { waves: [{ machines: ['picker-1' as unknown as Machine] }] })).toThrow(/Rollout/);
  });

  test('one rollout per stack; machines of another stack are refused', () => {
    const app = new App();
    const stack = new TerraformStack(app, 's');
    const other = new TerraformStack(app, 'o');
    const elsewhere = new Machine(other, 'elsewhere');
    expect(() => new Rollout(stack, 'x', { waves: [{ machines: [elsewhere] }] })).toThrow(
      'machine o/elsewhere of waves[0] belongs to another stack',
    );
    new Rollout(stack, 'first', { waves: [{ fraction: 1 }] });
    expect(() => new Rollout(stack, 'second', { waves: [{ fraction: 1 }] })).toThrow('stack s already has the rollout s/first');
  });

  test('a fragment rollout synthesizes by name beside the stack rollout, naming its fragment, and the engine reads both back', () => {
    const { stack } = newStack();
    const rig = new Fragment(stack, 'rig');
    const gripper = new Fragment(stack, 'gripper');
    const picker1 = new Machine(stack, 'picker-1').useFragment(rig, { version: 'stable' });
    new Rollout(stack, 'careful', { waves: [{ fraction: 1 }] });
    new Rollout(stack, 'rig-careful', {
      fragment: rig,
      waves: [{ machines: [picker1] }, { fraction: 1 }],
      gate: { timeout: '5m', settle: '30s' },
    });
    new Rollout(stack, 'gripper-careful', { fragment: gripper, waves: [{ count: 1 }] });
    const doc = synth(stack) as unknown as {
      '//': { fleetform_rollout: { name: string }; fleetform_fragment_rollouts: Record<string, unknown> };
    };
    expect(doc['//'].fleetform_rollout.name).toBe('careful');
    expect(doc['//'].fleetform_fragment_rollouts['rig-careful']).toEqual({
      name: 'rig-careful',
      waves: [{ machines: ['fleetform_machine.picker-1'] }, { fraction: 1 }],
      gate: { timeout_ms: 300_000, settle_ms: 30_000 },
      abort: {},
      offline: 'wait',
      on_failure: 'rollback',
      fragment: 'fleetform_fragment.rig',
    });
    const read = parseStackDocument('stack', doc as never);
    expect(read.rollout?.fragment).toBeUndefined();
    expect(read.fragmentRollouts?.map((r) => [r.name, r.fragment])).toEqual([
      ['rig-careful', 'fleetform_fragment.rig'],
      ['gripper-careful', 'fleetform_fragment.gripper'],
    ]);
  });

  test('one rollout per fragment; a fragment of another stack, or no Fragment, is refused', () => {
    const app = new App();
    const stack = new TerraformStack(app, 's');
    const other = new TerraformStack(app, 'o');
    const rig = new Fragment(stack, 'rig');
    expect(() => new Rollout(stack, 'x', { fragment: new Fragment(other, 'far'), waves: [{ fraction: 1 }] })).toThrow(
      'fragment o/far belongs to another stack',
    );
    expect(() => new Rollout(stack, 'y', { fragment: 'frag-1' as unknown as Fragment, waves: [{ fraction: 1 }] })).toThrow(/fragment/);
    new Rollout(stack, 'first', { fragment: rig, waves: [{ fraction: 1 }] });
    expect(() => new Rollout(stack, 'second', { fragment: rig, waves: [{ fraction: 1 }] })).toThrow(
      'fragment s/rig already has the rollout s/first',
    );
  });

  test('a broken fragment rollout in a stack document is an error naming it', () => {
    expect(() =>
      parseStackDocument('s', {
        '//': {
          fleetform_fragment_rollouts: {
            r: {
              name: 'r',
              waves: [{ fraction: 1 }],
              gate: { timeout_ms: 1, settle_ms: 0 },
              abort: {},
              offline: 'wait',
              on_failure: 'halt',
            },
          },
        },
      }),
    ).toThrow(/the rollout r is not valid: it names no fragment/);
  });

  test('a broken policy in a stack document is an error naming the field', () => {
    expect(() => parseStackDocument('s', { '//': { fleetform_rollout: { name: 'r', waves: [{ fraction: 2 }] } } })).toThrow(
      /rollout policy is not valid: waves\[0\]/,
    );
  });
});

describe('Machine healthGate', () => {
  test('synthesizes health_gate; bad keys and durations are problems naming the key', () => {
    const { stack } = newStack();
    new Machine(stack, 'arm', { healthGate: { timeout: '5m', settle: '30s' } });
    const doc = synth(stack) as unknown as { resource: { fleetform_machine: { arm: { health_gate: unknown } } } };
    expect(doc.resource.fleetform_machine.arm.health_gate).toEqual({ timeout: '5m', settle: '30s' });
    expect(() => new Machine(stack, 'bad', { healthGate: { timeout: '5m', wait: '1m' } as { timeout: string } })).toThrow(/healthGate/);
  });

  test('synthesizes its analysis (bounds only) beside the gate as health_analysis', () => {
    const { stack } = newStack();
    new Machine(stack, 'arm', {
      healthGate: {
        timeout: '5m',
        analysis: [
          { name: 'errors', metric: Metric.logRate({ level: 'error' }), max: 5, interval: '20s', count: 3 },
          { name: 'calibration', metric: Metric.jobFailures({ job: 'calibrate' }), max: 0 },
        ],
      },
    });
    const doc = synth(stack) as unknown as { resource: { fleetform_machine: { arm: Record<string, unknown> } } };
    expect(doc.resource.fleetform_machine.arm.health_gate).toEqual({ timeout: '5m' });
    expect(doc.resource.fleetform_machine.arm.health_analysis).toEqual({
      errors: { metric: 'log_rate', level: 'error', max: '5', interval: '20s', count: '3' },
      calibration: { metric: 'job_failures', job: 'calibrate', max: '0' },
    });
    expect(
      () =>
        new Machine(stack, 'twice', {
          healthGate: {
            analysis: [
              { name: 'errors', metric: Metric.logRate(), max: 5 },
              { name: 'errors', metric: Metric.logRate(), max: 6 },
            ],
          },
        }),
    ).toThrow(/healthGate\.analysis\[1\]: another analysis is named "errors"/);
  });

  test('the gate rule: durations, defaults, and what is refused', () => {
    expect(parseHealthGate({ timeout: '5m', settle: '30s' })).toEqual({ gate: { timeout_ms: 300_000, settle_ms: 30_000 }, problems: [] });
    expect(parseHealthGate({})).toEqual({ gate: { timeout_ms: 600_000, settle_ms: 0 }, problems: [] });
    expect(parseHealthGate({ timeout: 'soon', wait: '1m' }).problems).toEqual([
      { key: 'wait', message: 'unknown key "wait": a health gate takes timeout and settle' },
      { key: 'timeout', message: '"soon" is not a duration (write it like 10m, 1m30s or 500ms)' },
    ]);
    expect(parseHealthGate({ timeout: '0s' }).problems).toEqual([{ key: 'timeout', message: 'the timeout must be above zero' }]);
  });
});
