/**
 * A ModelPromotion as the engine reads it: the synthesized promotion, the machines held back
 * from a rejected version (and let through by allowRejected), and the verdicts an apply's
 * rollout outcome records.
 */
import { Dataset, Machine, Metric, ModelPromotion, ModelType, TrainingJob } from '../../src';
import { parseStackDocument } from '../../src/engine/desired/read-stacks';
import { heldStack, holdNote, promotionRecords } from '../../src/engine/rollout/promotion';
import { emptyState, type State } from '../../src/engine/state/schema';
import type { ResourceChange } from '../../src/engine/plan-model';
import type { RolloutOutcome } from '../../src/engine/rollout/events';
import { newStack } from '../constructs/helpers';

function fleet(version: string, allowRejected?: string[]) {
  const { stack } = newStack('fleet');
  const boxes = new Dataset(stack, 'boxes', { name: 'boxes' });
  const job = new TrainingJob(stack, 'job', {
    dataset: boxes,
    modelName: 'box-detector',
    modelVersion: version,
    modelType: ModelType.OBJECT_DETECTION,
    tags: [],
  });
  const machines = ['a', 'b'].map((name) => {
    const m = new Machine(stack, name, { name });
    m.deployModel(job, { name: 'detector' });
    return m;
  });
  new ModelPromotion(stack, 'careful', {
    model: job,
    rollout: {
      waves: [{ machines: [machines[0] as Machine] }, { fraction: 1 }],
      analysis: [
        {
          name: 'confidence',
          metric: Metric.reading({ resource: 'd', field: 'confidence', aggregate: 'mean' }),
          baseline: { minRatio: 0.9 },
        },
      ],
    },
    ...(allowRejected ? { allowRejected } : {}),
  });
  return { stack, desired: parseStackDocument('fleet', JSON.parse(JSON.stringify(stack.toTerraform()))) };
}

function stateWith(versions: [string, 'promoted' | 'rejected'][], running = '2'): State {
  const state = emptyState('fleet');
  for (const name of ['a', 'b'])
    state.resources[`fleetform_machine.${name}`] = {
      type: 'fleetform_machine',
      ids: { part_id: name },
      outputs: {},
      attributes: { deploy_models: { detector: `box-detector@${running}` } },
      dependencies: [],
      private: {},
      sensitive_paths: [],
      status: 'ok',
    };
  state.promotions = {
    'box-detector': {
      model: 'box-detector',
      promotion: 'careful',
      versions: versions.map(([version, status]) => ({ version, status, at: 'then', why: `${status} by evidence`, evidence: [] })),
    },
  };
  return state;
}

const deployed = (stack: ReturnType<typeof heldStack>['stack'], name: string) =>
  stack.resources.find((r) => r.address === `fleetform_machine.${name}`)?.attributes.deploy_models;

test('the promotion synthesizes beside its rollout, named as the promotion', () => {
  const { desired } = fleet('3', ['1']);
  expect(desired.promotions).toEqual([
    { name: 'careful', model: 'box-detector', source: 'fleetform_training_job.job', rollout: 'careful', allow_rejected: ['1'] },
  ]);
  expect(desired.rollout?.name).toBe('careful');
});

test('machines are held on the last promoted version of a rejected one, and the plan note says why and how to roll it again', () => {
  const { desired } = fleet('3');
  const { stack, holds } = heldStack(
    desired,
    stateWith([
      ['2', 'promoted'],
      ['3', 'rejected'],
    ]),
  );
  expect(deployed(stack, 'a')).toEqual({ detector: 'box-detector@2' });
  expect(holds.map((h) => [h.address, h.wanted, h.given])).toEqual([
    ['fleetform_machine.a', '3', '2'],
    ['fleetform_machine.b', '3', '2'],
  ]);
  expect(holdNote(holds[0] as (typeof holds)[number]).message).toBe(
    "model box-detector@3 was rejected by promotion careful (then: rejected by evidence): this machine keeps box-detector@2; train a new version, or add '3' to the promotion's allowRejected to roll it out again",
  );
});

test('allowRejected, or a version never rejected, deploys as the code says', () => {
  expect(
    deployed(
      heldStack(
        fleet('3', ['3']).desired,
        stateWith([
          ['2', 'promoted'],
          ['3', 'rejected'],
        ]),
      ).stack,
      'a',
    ),
  ).toEqual({ detector: 'box-detector@3' });
  expect(
    heldStack(
      fleet('4').desired,
      stateWith([
        ['2', 'promoted'],
        ['3', 'rejected'],
      ]),
    ).holds,
  ).toEqual([]);
});

test("an apply records the version its rollout stopped on as rejected, with the analysis's values", () => {
  const { desired } = fleet('3');
  const before = stateWith([['2', 'promoted']]);
  const changes = ['a', 'b'].map(
    (name) => ({ stack: 'fleet', address: `fleetform_machine.${name}`, type: 'fleetform_machine', action: 'update' }) as ResourceChange,
  );
  const rollout = {
    stack: 'fleet',
    name: 'careful',
    outcome: 'stopped',
    reason: 'analysis confidence failed',
    onFailure: 'rollback',
    seconds: 3,
    waves: [
      {
        rule: 'machines',
        machines: [{ machine: 'a', address: 'fleetform_machine.a', result: 'failed', why: 'analysis confidence failed' }],
        analysis: {
          decision: 'failed',
          why: 'low',
          analyses: [
            {
              name: 'confidence',
              decision: 'failed',
              measurements: [{ at: 1, result: 'fail', value: 0.72, baseline: 0.9, machines: [], why: 'low' }],
            },
          ],
        },
      },
    ],
  } as RolloutOutcome;
  const records = promotionRecords({
    stack: desired,
    before,
    changes,
    notWritten: new Set(['fleetform_machine.b']),
    rollouts: [rollout],
    at: 'now',
  });
  expect(records.get('box-detector')?.versions).toEqual([
    expect.objectContaining({ version: '2', status: 'promoted' }),
    {
      version: '3',
      status: 'rejected',
      at: 'now',
      rollout: 'careful',
      why: 'analysis confidence failed',
      evidence: [{ wave: 1, analysis: 'confidence', result: 'fail', value: 0.72, baseline: 0.9, why: 'low' }],
    },
  ]);
  // Nothing changed of the model: no record written.
  expect(promotionRecords({ stack: desired, before, changes: [], notWritten: new Set(), rollouts: [], at: 'now' }).size).toBe(0);
});

test('a second promotion of the same model, or a model of another stack, is refused naming the fix', () => {
  const { stack } = fleet('3');
  const job = stack.node.findChild('job') as TrainingJob;
  expect(() => new ModelPromotion(stack, 'again', { model: job, rollout: { waves: [{ fraction: 1 }] } })).toThrow(
    /model box-detector already has the promotion fleet\/careful/,
  );
  const other = newStack('other').stack;
  expect(() => new ModelPromotion(other, 'p', { model: job, rollout: { waves: [{ fraction: 1 }] } })).toThrow(/belongs to another stack/);
});
