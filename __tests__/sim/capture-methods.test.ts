/** A simulated machine runs a config holding a capture method its API lacks, and logs that it captures nothing for it. */
import { runStandalone } from '../../src/emulator/sim/run-config';

test('the data manager logs a capture method the resource API has no collector for; the resource still runs', () => {
  const config = {
    components: [
      {
        name: 'cam',
        api: 'rdk:component:camera',
        model: 'rdk:builtin:fake',
        service_configs: [
          {
            type: 'data_manager',
            attributes: { capture_methods: [{ method: 'ReadImage' }, { method: 'Readings', capture_frequency_hz: 1 }] },
          },
        ],
      },
    ],
    services: [{ name: 'dm', api: 'rdk:service:data_manager', model: 'rdk:builtin:builtin' }],
  };
  const { run, logs } = runStandalone(config);
  const capture = logs.filter((l) => l.logger === 'rdk.data_manager');
  expect(capture).toHaveLength(1);
  expect(capture[0]).toMatchObject({ level: 'error', message: expect.stringContaining('rdk:component:camera/cam') });
  expect(capture[0]?.message).toContain('"Readings"');
  expect(run.resources.map((r) => r.name)).toContain('cam');
});
