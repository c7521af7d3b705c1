import { readBaseline, updatedBaseline } from '../../bench/baseline';
import { compareRatio, compareResults, formatComparisons, ratiosOf, worse } from '../../bench/ratios';

const committed = readBaseline();

/** The committed results with one size row's field set to `value`. */
function withRowField(results: Readonly<Record<string, unknown>>, size: number, field: string, scale: number): Record<string, unknown> {
  const rows = (results.rows as Array<Record<string, number>>).map((row) =>
    row.size === size ? { ...row, [field]: (row[field] as number) * scale } : row,
  );
  return { ...results, rows };
}

describe('the ratios a bench run is checked on', () => {
  it('names every ratio the committed baseline holds, the plan against its floor in CPU among them', () => {
    const names = ratiosOf(committed.results).map((r) => r.name);
    expect(names).toEqual(expect.arrayContaining(['sizes.1000.plan_to_floor', 'sizes.1000.plan_to_floor_cpu', 'sizes.1000.client_to_sdk']));
    expect(new Set(names).size).toBe(names.length);
  });

  it('passes the committed figures against themselves', () => {
    const comparisons = compareResults(committed.results, committed.results);
    expect(comparisons.length).toBeGreaterThan(0);
    expect(worse(comparisons)).toEqual([]);
    expect(comparisons.every((c) => c.verdict === 'same')).toBe(true);
  });

  it('fails a deliberately slowed plan: its plan/floor a fifth above the committed one', () => {
    const slowed = withRowField(committed.results, 1000, 'plan_to_floor_cpu', 1.2);
    const failed = worse(compareResults(committed.results, slowed));
    expect(failed.map((c) => c.name)).toEqual(['sizes.1000.plan_to_floor_cpu']);
    expect(formatComparisons(compareResults(committed.results, slowed))).toMatch(
      /worse +sizes\.1000\.plan_to_floor_cpu: .* \(\+20%, lower is better\)/,
    );
  });

  it('reports a faster plan as better, without failing', () => {
    const faster = withRowField(committed.results, 1000, 'plan_to_floor_cpu', 0.8);
    const comparisons = compareResults(committed.results, faster);
    expect(worse(comparisons)).toEqual([]);
    expect(comparisons.find((c) => c.name === 'sizes.1000.plan_to_floor_cpu')?.verdict).toBe('better');
  });

  it('reads a ratio where higher is better the other way round (our reads against the SDK)', () => {
    const slowerClient = withRowField(committed.results, 1000, 'client_to_sdk', 0.85);
    expect(worse(compareResults(committed.results, slowerClient)).map((c) => c.name)).toEqual(['sizes.1000.client_to_sdk']);
  });

  it('lets a ratio move by up to a tenth either way', () => {
    const ratio = { name: 'x', value: 1.1, better: 'lower' as const };
    expect(compareRatio(ratio, 1.0).verdict).toBe('same');
    expect(compareRatio({ ...ratio, value: 1.11 }, 1.0).verdict).toBe('worse');
    expect(compareRatio({ ...ratio, value: 0.89 }, 1.0).verdict).toBe('better');
    expect(compareRatio({ ...ratio, better: 'higher', value: 0.89 }, 1.0).verdict).toBe('worse');
    expect(compareRatio(ratio, undefined).verdict).toBe('new');
  });

  it('takes the reconciler check CPU, the rollout, fragments, state and provider ratios and the latency bounds from their parts', () => {
    const results = {
      latency: [{ size: 100, rtt_ms: 80, plan_to_bound: 1.2, apply_to_bound: 1.4 }],
      state_backends: { pg_to_local: 1.01, apply_pg_to_local: 1.3 },
      provider: { terraform_to_fleetform: 2.5 },
      rollout: { ratio: 1.1 },
      fragments: { ratio: 0.9 },
      reconcile: { own_cpu_s_per_check: 2.1 },
    };
    expect(ratiosOf(results).map((r) => `${r.name}=${r.value}`)).toEqual([
      'latency.100.80ms.plan_to_bound=1.2',
      'latency.100.80ms.apply_to_bound=1.4',
      'state_backends.pg_to_local=1.01',
      'state_backends.apply_pg_to_local=1.3',
      'provider.terraform_to_fleetform=2.5',
      'rollout.ratio=1.1',
      'fragments.ratio=0.9',
      'reconcile.own_cpu_s_per_check=2.1',
    ]);
  });

  it('updates only the parts a run measured, each with when it was measured', () => {
    const at = { date: '2026-12-02 06:00', commit: 'abc1234', load_average: [5, 4, 3], cpu_cores: 2 };
    const updated = updatedBaseline(committed, { rollout: { ratio: 1.05 } }, at);
    expect(updated.results.rows).toEqual(committed.results.rows);
    expect(updated.results.rollout).toEqual({ ratio: 1.05 });
    expect(updated.measured.rollout).toEqual(at);
    expect(updated.measured.rows).toEqual(committed.measured.rows);
  });
});
