/** The data pipeline kind without the service: its view, its problems by stage index, and which changes replace it. */
import { unknownValue } from '../../src/engine/json';
import type { KindContext } from '../../src/engine/kind';
import { replaceReasonsOf } from '../../src/engine/kind-declaration';
import { dataPipelineDeclaration, dataPipelineKind } from '../../src/engine/kinds/data-pipeline';

// desire reads only the run's organization.
const ctx = { organizationId: 'org-1' } as KindContext;

const attributes = (extra: Record<string, unknown> = {}) =>
  dataPipelineDeclaration.schema.parse({ name: 'temps', query: ['{ "$match" : { "b": 1, "a": 2 } }'], schedule: '0 * * * *', ...extra });

test('the view holds each stage as compact JSON text in its key order, and the service defaults', async () => {
  const desired = await dataPipelineKind.desire(ctx, attributes(), undefined);
  expect(desired.problems).toEqual([]);
  expect(desired.view).toEqual({
    name: 'temps',
    query: ['{"$match":{"b":1,"a":2}}'],
    schedule: '0 * * * *',
    data_source_type: 'standard',
    enable_backfill: false,
    enabled: true,
    organization_id: 'org-1',
  });
});

test('a bad stage is a problem naming its index; a bad schedule names the schedule', async () => {
  const desired = await dataPipelineKind.desire(
    ctx,
    attributes({ query: ['{"$match":{}}', '{"a":1,"$b":2}', 'nope'], schedule: '* * *' }),
    undefined,
  );
  expect(desired.problems.map((p) => [p.path, p.message])).toEqual([
    ['query[1]', expect.stringMatching(/^stage 1 has the keys "a", "\$b"/)],
    ['query[2]', expect.stringMatching(/^stage 2 is not JSON text/)],
    ['schedule', expect.stringMatching(/3 fields, not 5/)],
  ]);
});

test('a stage or schedule not known yet is kept for apply, not refused', async () => {
  const desired = await dataPipelineKind.desire(
    ctx,
    { ...attributes(), query: [unknownValue as never], schedule: unknownValue as never },
    undefined,
  );
  expect(desired.problems).toEqual([]);
});

test('the declaration refuses an unknown source, by the field', () => {
  const parsed = dataPipelineDeclaration.schema.safeParse({
    name: 'x',
    query: [],
    schedule: '0 * * * *',
    data_source_type: 'pipeline_sink',
  });
  expect(parsed.success).toBe(false);
  expect(parsed.error?.issues[0]?.path).toEqual(['data_source_type']);
});

describe('replace reasons: the service changes no query, schedule, source or backfill in place', () => {
  const current = {
    name: 'temps',
    query: ['{"$match":{}}'],
    schedule: '0 * * * *',
    data_source_type: 'standard',
    enable_backfill: false,
    enabled: true,
    organization_id: 'org-1',
  };
  test.each([
    [{ name: 'renamed' }, []],
    [{ enabled: false }, []],
    [{ name: 'renamed', enabled: false }, []],
    [{ query: ['{"$match":{"a":1}}'] }, ['query']],
    [{ schedule: '*/5 * * * *' }, ['schedule']],
    [{ data_source_type: 'hot_storage' }, ['data_source_type']],
    [{ enable_backfill: true }, ['enable_backfill']],
    [{ query: ['{"$limit":1}'], name: 'n' }, ['query']],
  ])('%j replaces for %j', (change, reasons) => {
    expect(replaceReasonsOf(dataPipelineDeclaration, current, { ...current, ...change })).toEqual(reasons);
  });

  test('a replace says why: the service changes none of these in place', () => {
    const judged = dataPipelineKind.judge?.({ replaceReasons: ['query'] } as never);
    expect(judged?.notes).toEqual([{ level: 'warning', message: expect.stringContaining('changes no query of a pipeline in place') }]);
    expect(dataPipelineKind.judge?.({ replaceReasons: [] } as never)?.notes).toEqual([]);
  });
});
