import { TerraformOutput, Testing } from 'cdktf';
import { DataPipeline } from '../../src/constructs';
import { errorsOf, newStack, resourceOf, synth } from './helpers';

const query = [{ $match: { component_name: 'thermometer' } }, { $group: { _id: '$robot_id', n: { $sum: 1 } } }];

describe('DataPipeline', () => {
  test('synthesizes a fleetform_data_pipeline with its stages as JSON text in their key order', () => {
    const { stack } = newStack();
    new DataPipeline(stack, 'temps', { schedule: '0 * * * *', query, dataSourceType: 'hot_storage', enabled: false });
    expect(resourceOf(synth(stack), 'fleetform_data_pipeline', 'temps')).toEqual({
      name: 'temps',
      schedule: '0 * * * *',
      query: ['{"$match":{"component_name":"thermometer"}}', '{"$group":{"_id":"$robot_id","n":{"$sum":1}}}'],
      data_source_type: 'hot_storage',
      enabled: false,
    });
  });

  test('dataPipelineId references the id assigned at apply', () => {
    const { stack } = newStack();
    const p = new DataPipeline(stack, 'temps', { schedule: '0 * * * *', query });
    new TerraformOutput(stack, 'pipeline-id', { value: p.dataPipelineId });
    expect(JSON.parse(Testing.synth(stack)).output['pipeline-id'].value).toBe('${fleetform_data_pipeline.temps.id}');
  });

  test('a stage without exactly one $ key is refused at construction, naming its index', () => {
    const { stack } = newStack();
    expect(() => new DataPipeline(stack, 'bad', { schedule: '0 * * * *', query: [{ $match: {} }, { match: {} } as never] })).toThrow(
      /query\[1\].*stage 1 has the keys "match"/,
    );
    expect(() => new DataPipeline(stack, 'bad2', { schedule: '0 * * * *', query: [{ $match: {}, $limit: 2 }] })).toThrow(/stage 0/);
  });

  test('a schedule that is not five cron fields, an empty name and a repeated name are errors of the app', () => {
    const { app, stack } = newStack('s');
    new DataPipeline(stack, 'a', { name: 'temps', schedule: '0 * * * *', query });
    new DataPipeline(stack, 'b', { name: 'temps', schedule: '0 * * * *', query });
    new DataPipeline(stack, 'c', { name: 'temps', organizationId: 'other', schedule: '0 * * *', query });
    new DataPipeline(stack, 'd', { name: '', schedule: '0 * * * *', query });
    expect(errorsOf(app)).toEqual([
      's/b name duplicate-data-pipeline-name',
      's/c schedule data-pipeline-schedule',
      's/d name data-pipeline-name',
    ]);
  });
});
