import {
  acknowledgedAttribute,
  acknowledgmentsOf,
  inCode,
  isCertainFailure,
  namedPath,
  storedFailureAcknowledgments,
  UNMATCHED_ACKNOWLEDGMENT,
} from '../../src/domain/certainty';
import { FRAGMENT_RESOLVED_ISSUES } from '../../src/domain/fragments';
import { validateMachineConfig } from '../../src/domain/validate';

const broken = {
  components: [
    { name: 'board', api: 'rdk:component:board', model: 'rdk:builtin:fake' },
    { name: 'sonar-1', api: 'rdk:component:sensor', model: 'acme:sonar:ultrasonic', depends_on: ['ghost'] },
  ],
  modules: [{ type: 'registry', name: 'acme_distance', module_id: 'acme:distance', version: 'newest' }],
};

describe('certainty of findings', () => {
  test('each certain failure says so; the service stores the config (no error)', () => {
    const result = validateMachineConfig(broken);
    expect(result.errors).toEqual([]);
    expect(result.warnings.filter(isCertainFailure).map((w) => `${w.path} ${w.code}`)).toEqual([
      'components[1].model model-module-mismatch',
      'components[1].depends_on[0] depends-on-missing',
      'modules[0].version module-version',
    ]);
  });

  test('a finding path names its entry', () => {
    expect(namedPath(broken, 'components[1].model')).toBe('components.sonar-1.model');
    expect(namedPath(broken, 'modules[0].version')).toBe('modules.acme_distance.version');
    expect(namedPath({ components: [{ name: '-front camera' }] }, 'components[0].name')).toBe('components["-front camera"].name');
    expect(namedPath(broken, 'network.bind_address')).toBe('network.bind_address');
    expect(namedPath({ triggers: [{ name: 'alert' }] }, 'triggers[0].notifications[0].value')).toBe(
      'triggers.alert.notifications[0].value',
    );
    expect(namedPath({ packages: [{ name: 'detector' }] }, 'packages[0].version')).toBe('packages.detector.version');
  });

  test("a trigger that certainly cannot notify is acknowledged at its path by the trigger's name", () => {
    const config = {
      triggers: [
        {
          name: 'alert',
          event: { type: 'part_online' },
          notifications: [{ type: 'webhook', value: 'not a url', seconds_between_notifications: 10 }],
        },
      ],
    };
    const found = validateMachineConfig(config);
    const [error] = inCode(found, config, []).errors;
    expect(error?.code).toBe('trigger-webhook');
    expect(error?.hint).toContain(`acknowledged: [{ code: 'trigger-webhook', path: "triggers.alert.notifications[0].value"`);
    const acks = storedFailureAcknowledgments(config, found, new Set());
    expect(acks.map((a) => `${a.code} ${a.path}`)).toEqual(['trigger-webhook triggers.alert.notifications[0].value']);
    expect(inCode(found, config, acks)).toMatchObject({ errors: [], warnings: [{ code: 'trigger-webhook' }] });
  });

  test('in code: certain failures are errors with the acknowledgment to write; acknowledged ones are warnings; unmatched ones warn', () => {
    const judged = inCode(validateMachineConfig(broken), broken, [
      { code: 'module-version', path: 'modules.acme_distance.version', reason: 'pinned by hand' },
      { code: 'module-version', path: 'modules.gone.version', reason: 'old' },
    ]);
    expect(judged.errors.map((e) => e.code)).toEqual(['model-module-mismatch', 'depends-on-missing']);
    expect(judged.errors[0]?.hint).toContain(`acknowledged: [{ code: 'model-module-mismatch', path: "components.sonar-1.model"`);
    expect(judged.warnings.map((w) => `${w.code} ${w.message.endsWith('(acknowledged: pinned by hand)')}`)).toEqual([
      'module-version true',
      `${UNMATCHED_ACKNOWLEDGMENT} false`,
    ]);
  });

  test('with an import the machine runs without, what its fragments may bring is only possible', () => {
    const judged = inCode(validateMachineConfig(broken), broken, [], { onlyPossible: FRAGMENT_RESOLVED_ISSUES });
    expect(judged.errors.map((e) => e.code)).toEqual(['module-version']);
    expect(judged.warnings.map((w) => `${w.code} ${w.certainty}`)).toEqual([
      'model-module-mismatch possible',
      'depends-on-missing possible',
    ]);
  });

  test('adopting acknowledges each certain failure once; as the attribute and back', () => {
    const acks = storedFailureAcknowledgments(broken, validateMachineConfig(broken), new Set());
    expect(acks.map((a) => `${a.code} ${a.path}`)).toEqual([
      'model-module-mismatch components.sonar-1.model',
      'depends-on-missing components.sonar-1.depends_on[0]',
      'module-version modules.acme_distance.version',
    ]);
    expect(acks[0]?.reason).toMatch(/^broken when adopted: resource "sonar-1" will not start/);
    expect(acknowledgmentsOf(acknowledgedAttribute(acks))).toEqual(acks);
    expect(inCode(validateMachineConfig(broken), broken, acks).errors).toEqual([]);
  });
});
