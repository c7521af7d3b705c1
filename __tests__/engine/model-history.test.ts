/**
 * A promoted model's history as status and the dashboard read it from state: its verdicts,
 * and which machines were last written with which version of it.
 */
import { modelHistories } from '../../src/engine/kinds/model-history';
import { emptyState, type State } from '../../src/engine/state/schema';

function machine(name: string, attributes: Record<string, unknown>): State['resources'][string] {
  return {
    type: 'fleetform_machine',
    ids: { part_id: name },
    outputs: {},
    attributes: { name, ...attributes },
    dependencies: [],
    private: {},
    sensitive_paths: [],
    status: 'ok',
  };
}

function fleet(): State {
  const state = emptyState('fleet');
  state.resources['fleetform_machine.inspector-1'] = machine('inspector-1', {
    deploy_models: { detector: 'org-1/box-detector@4' },
  });
  state.resources['fleetform_machine.inspector-2'] = machine('inspector-2', { deploy_models: { detector: 'box-detector@2' } });
  // State holds the config's packages keyed by name, as the apply wrote them from deploy_models.
  state.resources['fleetform_machine.inspector-3'] = machine('inspector-3', {
    config: { packages: { detector: { name: 'detector', package: 'org-1/box-detector', version: '3', type: 'ml_model' } } },
  });
  state.resources['fleetform_machine.other'] = machine('other', { deploy_models: { seg: 'org-1/segmenter@7' } });
  state.promotions = {
    'box-detector': {
      model: 'box-detector',
      promotion: 'careful',
      versions: [
        { version: '3', status: 'rejected', at: 'then', why: 'confidence 0.80x the baseline', evidence: [] },
        { version: '4', status: 'promoted', at: 'later', why: 'its rollout completed', evidence: [] },
      ],
    },
  };
  return state;
}

test('each machine deploying the model is listed with the version it was last written with', () => {
  const [history] = modelHistories([fleet()]);
  expect(history?.model).toBe('box-detector');
  expect(history?.machines).toEqual([
    { machine: 'inspector-1', version: '4' },
    { machine: 'inspector-2', version: '2' },
    { machine: 'inspector-3', version: '3' },
  ]);
});

test("the verdicts are the promotion's, in the order state holds them", () => {
  const [history] = modelHistories([fleet()]);
  expect(history?.versions.map((v) => `${v.version} ${v.status}`)).toEqual(['3 rejected', '4 promoted']);
  expect(history?.failedTraining).toEqual([]);
});

test('a state without promotions has no model history', () => {
  expect(modelHistories([emptyState('fleet')])).toEqual([]);
});
