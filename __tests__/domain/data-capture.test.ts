import { inCode, isCertainFailure } from '../../src/domain/certainty';
import { captureMethodsOf, CAPTURE_METHOD_CODE } from '../../src/domain/data-capture';
import { validateMachineConfig } from '../../src/domain/validate';

function capturing(api: string, model: string, methods: Array<Record<string, unknown>>, type = 'data_manager') {
  return {
    components: [{ name: 'cam', api, model, service_configs: [{ type, attributes: { capture_methods: methods } }] }],
    services: [{ name: 'dm', api: 'rdk:service:data_manager', model: 'rdk:builtin:builtin' }],
  };
}

describe('data capture methods per API', () => {
  test('a builtin API captures only its own methods: another one is a certain failure naming the methods it has', () => {
    const config = capturing('rdk:component:camera', 'rdk:builtin:webcam', [
      { method: 'ReadImage', capture_frequency_hz: 1 },
      { method: 'Readings', capture_frequency_hz: 1 },
    ]);
    const result = validateMachineConfig(config);
    expect(result.errors).toEqual([]);
    const failures = result.warnings.filter(isCertainFailure);
    expect(failures.map((w) => `${w.code} ${w.path}`)).toEqual([
      `${CAPTURE_METHOD_CODE} components[0].service_configs[0].attributes.capture_methods[1].method`,
    ]);
    expect(failures[0]?.message).toContain('"Readings"');
    expect(failures[0]?.hint).toBe('use one of: NextPointCloud, ReadImage, GetImages, DoCommand, GetWorldPose');
  });

  test('in code it is an error until acknowledged by its named path', () => {
    const config = capturing('rdk:component:sensor', 'acme:sonar:ultrasonic', [{ method: 'ReadImage' }], 'rdk:service:data_manager');
    const path = 'components.cam.service_configs[0].attributes.capture_methods[0].method';
    expect(inCode(validateMachineConfig(config), config, []).errors.map((e) => e.code)).toContain(CAPTURE_METHOD_CODE);
    const acknowledged = inCode(validateMachineConfig(config), config, [{ code: CAPTURE_METHOD_CODE, path, reason: 'firmware pending' }]);
    expect(acknowledged.errors.filter((e) => e.code === CAPTURE_METHOD_CODE)).toEqual([]);
    expect(acknowledged.warnings.find((w) => w.code === CAPTURE_METHOD_CODE)?.message).toContain('(acknowledged: firmware pending)');
  });

  test('a modular API, a disabled method and a service config of another service say nothing', () => {
    const codes = (config: unknown) =>
      [...validateMachineConfig(config).warnings, ...validateMachineConfig(config).errors].map((i) => i.code);
    expect(codes(capturing('acme:component:lidar', 'acme:lidar:one', [{ method: 'Scan' }]))).not.toContain(CAPTURE_METHOD_CODE);
    expect(codes(capturing('rdk:component:camera', 'rdk:builtin:webcam', [{ method: 'Readings', disabled: true }]))).not.toContain(
      CAPTURE_METHOD_CODE,
    );
    expect(codes(capturing('rdk:component:camera', 'rdk:builtin:webcam', [{ method: 'Readings' }], 'acme:service:other'))).not.toContain(
      CAPTURE_METHOD_CODE,
    );
  });

  test('an API with no collector has no method to capture; the table holds builtin APIs alone', () => {
    const config = {
      services: [
        {
          name: 'ml',
          api: 'rdk:service:mlmodel',
          model: 'rdk:builtin:tflite_cpu',
          service_configs: [{ type: 'data_manager', attributes: { capture_methods: [{ method: 'Infer' }] } }],
        },
      ],
    };
    const failure = validateMachineConfig(config).warnings.find((w) => w.code === CAPTURE_METHOD_CODE);
    expect(failure?.hint).toBe('rdk:service:mlmodel has no data capture method; remove the entry');
    expect(captureMethodsOf('acme:component:camera')).toBeUndefined();
    expect(captureMethodsOf('constructor')).toBeUndefined();
  });
});
