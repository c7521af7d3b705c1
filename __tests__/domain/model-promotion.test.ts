import {
  deployDecision,
  promotedVersion,
  promotionVerdict,
  splitDeployedModel,
  withVerdict,
  WRITE_FAILURE_PREFIX,
  type PromotionPolicy,
  type PromotionRecord,
  type RolloutEvidence,
} from '../../src/domain/model-promotion';

const POLICY: PromotionPolicy = { name: 'p', model: 'box-detector', source: 'fleetform_training_job.j', rollout: 'p', allow_rejected: [] };
const AT = '2026-12-02T10:00:00.000Z';

function record(...versions: [string, 'promoted' | 'rejected'][]): PromotionRecord {
  return {
    model: 'box-detector',
    promotion: 'p',
    versions: versions.map(([version, status]) => ({ version, status, at: AT, why: `${status} because`, evidence: [] })),
  };
}

function rollout(outcome: RolloutEvidence['outcome'], machines: { result: string; why?: string }[], value?: number): RolloutEvidence {
  const analysis =
    value === undefined
      ? {}
      : { analysis: { analyses: [{ name: 'confidence', measurements: [{ result: 'fail', value, baseline: 0.9, why: 'low' }] }] } };
  return {
    name: 'p',
    outcome,
    ...(outcome === 'stopped' ? { reason: 'analysis confidence failed' } : {}),
    waves: [{ machines, ...analysis }],
  };
}

describe('which version machines are given', () => {
  test('a version never decided, or promoted, is deployed as the code says', () => {
    expect(deployDecision(POLICY, undefined, '3')).toEqual({ kind: 'deploy', version: '3' });
    expect(deployDecision(POLICY, record(['3', 'promoted']), '3')).toEqual({ kind: 'deploy', version: '3' });
  });

  test('a rejected version is held back to the last promoted one', () => {
    const decision = deployDecision(POLICY, record(['1', 'promoted'], ['2', 'promoted'], ['3', 'rejected']), '3');
    expect(decision).toEqual({ kind: 'hold', version: '2', rejected: expect.objectContaining({ version: '3', status: 'rejected' }) });
  });

  test('with none promoted, the machines keep what they run', () => {
    expect(deployDecision(POLICY, record(['3', 'rejected']), '3')).toEqual(expect.objectContaining({ kind: 'keep' }));
  });

  test('allow_rejected lets a rejected version roll out again', () => {
    const allowed = { ...POLICY, allow_rejected: ['3'] };
    expect(deployDecision(allowed, record(['2', 'promoted'], ['3', 'rejected']), '3')).toEqual({ kind: 'deploy', version: '3' });
  });

  test('the last promoted version is the newest verdict promoting one', () => {
    expect(promotedVersion(record(['4', 'promoted'], ['3', 'rejected']))).toBe('4');
    expect(promotedVersion(undefined)).toBeUndefined();
  });
});

describe('what an apply says of a version', () => {
  const base = { version: '3', at: AT, machines: 3, notWritten: 0 };

  test('a rollout stopped by its analysis rejects the version, keeping the values', () => {
    const verdict = promotionVerdict({
      ...base,
      rollout: rollout('stopped', [{ result: 'failed', why: 'analysis confidence failed' }], 0.72),
    });
    expect(verdict).toEqual(
      expect.objectContaining({
        status: 'rejected',
        why: 'analysis confidence failed',
        rollout: 'p',
        evidence: [expect.objectContaining({ wave: 1, analysis: 'confidence', value: 0.72, baseline: 0.9 })],
      }),
    );
  });

  test('a machine failing its gate rejects it too', () => {
    expect(promotionVerdict({ ...base, rollout: rollout('stopped', [{ result: 'failed', why: 'module crashed' }]) })?.status).toBe(
      'rejected',
    );
  });

  test('a rollout stopped only because configs were not written (a model still training) decides nothing', () => {
    const pending = rollout('stopped', [{ result: 'failed', why: `${WRITE_FAILURE_PREFIX}: the deploy is pending` }]);
    expect(promotionVerdict({ ...base, notWritten: 1, rollout: pending })).toBeUndefined();
  });

  test('a paused rollout, or a machine not written, decides nothing', () => {
    expect(promotionVerdict({ ...base, rollout: rollout('paused', [{ result: 'healthy' }]) })).toBeUndefined();
    expect(promotionVerdict({ ...base, notWritten: 1 })).toBeUndefined();
    expect(promotionVerdict({ ...base, machines: 0 })).toBeUndefined();
  });

  test('a completed rollout, or machines written without one, promote it', () => {
    expect(promotionVerdict({ ...base, rollout: rollout('completed', [{ result: 'healthy' }], 0.9) })).toEqual(
      expect.objectContaining({ status: 'promoted', why: 'rollout p completed on 3 machine(s)' }),
    );
    expect(promotionVerdict(base)).toEqual(
      expect.objectContaining({ status: 'promoted', why: 'written to 3 machine(s) without a rollout' }),
    );
  });

  test('a version decided again keeps only its newest verdict, at the end', () => {
    const again = withVerdict(record(['2', 'promoted'], ['3', 'rejected']), {
      version: '3',
      status: 'promoted',
      at: AT,
      why: 'ok',
      evidence: [],
    });
    expect(again.versions.map((v) => [v.version, v.status])).toEqual([
      ['2', 'promoted'],
      ['3', 'promoted'],
    ]);
  });
});

test('a deployed model text splits into its organization prefix, model and version', () => {
  expect(splitDeployedModel('org-1/box-detector@3')).toEqual({ prefix: 'org-1/', model: 'box-detector', version: '3' });
  expect(splitDeployedModel('box-detector@1.2.3')).toEqual({ prefix: '', model: 'box-detector', version: '1.2.3' });
  expect(splitDeployedModel('box-detector')).toBeUndefined();
});
