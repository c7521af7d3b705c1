import {
  CONFIG_LANGUAGE,
  configSecrets,
  MachineConfigSchema,
  validateMachineConfig,
  webhookCarriesToken,
  webhookShown,
  type Issue,
} from '../../src/domain';

// The five event forms, as the official CLI's `machines part add-trigger` help writes them.
const cliTriggers = [
  {
    name: 'online',
    event: { type: 'part_online' },
    notifications: [{ type: 'email', value: 'ops@example.com', seconds_between_notifications: 60 }],
  },
  {
    name: 'data',
    event: { type: 'part_data_ingested', data_ingested: { data_types: ['binary'] } },
    notifications: [{ type: 'webhook', value: 'https://hooks.example.com/hook', seconds_between_notifications: 0 }],
  },
  {
    name: 'hot',
    event: {
      type: 'conditional_data_ingested',
      conditional: {
        data_capture_method: 'sensor:my-sensor:Readings',
        condition: { evals: [{ operator: 'gt', value: { readings: { cpu: 80 } } }] },
      },
    },
    notifications: [{ type: 'email', value: 'ops@example.com', seconds_between_notifications: 10 }],
  },
  {
    name: 'logs',
    event: { type: 'conditional_logs_ingested', log_levels: ['error', 'warn'] },
    notifications: [{ type: 'email', value: 'all_machine_owners' }],
  },
];

const findings = (triggers: unknown): Issue[] =>
  validateMachineConfig({ components: [], services: [], modules: [], triggers }).warnings.filter((w) => w.path.startsWith('triggers'));

describe('the triggers section', () => {
  test('is a section code owns, declared by the Trigger construct', () => {
    expect(CONFIG_LANGUAGE.triggers.owner).toBe('code');
    expect(CONFIG_LANGUAGE.triggers.construct).toBe('Trigger');
  });

  test('every form the official CLI writes parses and has no finding', () => {
    expect(MachineConfigSchema.safeParse({ triggers: cliTriggers }).success).toBe(true);
    const result = validateMachineConfig({ triggers: cliTriggers });
    expect(result.errors).toEqual([]);
    expect(result.warnings.filter((w) => w.path.startsWith('triggers'))).toEqual([]);
  });

  test('a section of the wrong shape is a warning, never an error: the service stores any JSON there', () => {
    for (const triggers of [null, 'none', [{ name: 3 }], [{ notifications: 'x' }]]) {
      const result = validateMachineConfig({ triggers });
      expect(result.errors).toEqual([]);
      expect(result.warnings.some((w) => w.code === 'type' && w.path.startsWith('triggers'))).toBe(true);
    }
  });

  test('an unknown event type or notification type is a possible failure only', () => {
    const issues = findings([{ name: 'later', event: { type: 'part_rebooted' }, notifications: [{ type: 'push', value: 'x' }] }]);
    expect(issues.map((i) => [i.code, i.path, i.certainty])).toEqual([
      ['trigger-event', 'triggers[0].event.type', undefined],
      ['trigger-notification', 'triggers[0].notifications[0].type', undefined],
    ]);
  });

  test('what certainly cannot notify is a certain failure of that trigger, naming the field', () => {
    const issues = findings([
      {
        name: 'broken',
        event: {
          type: 'conditional_data_ingested',
          conditional: { data_capture_method: 'my-sensor.Readings', condition: { evals: [{ operator: 'above', value: { x: 1 } }] } },
        },
        notifications: [
          { type: 'webhook', value: 'hooks.example.com/hook' },
          { type: 'email', value: 'nobody' },
        ],
      },
      { name: 'silent', event: { type: 'part_offline' }, notifications: [] },
      { name: 'nodata', event: { type: 'part_data_ingested' }, notifications: [{ type: 'email', value: 'all_machine_owners' }] },
    ]);
    const certain = issues.filter((i) => i.certainty === 'certain').map((i) => [i.code, i.path]);
    expect(certain).toEqual([
      ['trigger-capture-method', 'triggers[0].event.conditional.data_capture_method'],
      ['trigger-condition', 'triggers[0].event.conditional.condition.evals[0]'],
      ['trigger-webhook', 'triggers[0].notifications[0].value'],
      ['trigger-email', 'triggers[0].notifications[1].value'],
      ['trigger-notification', 'triggers[1].notifications'],
      ['trigger-event', 'triggers[2].event.data_ingested'],
    ]);
    expect(issues.find((i) => i.code === 'trigger-webhook')?.message).toContain('trigger "broken"');
  });

  test('a liveness trigger notifying every 0 seconds, and a name given twice, are warnings', () => {
    const issues = findings([
      { name: 'a', event: { type: 'part_online' }, notifications: [{ type: 'email', value: 'a@b.c', seconds_between_notifications: 0 }] },
      { name: 'a', event: { type: 'part_offline' }, notifications: [{ type: 'email', value: 'a@b.c', seconds_between_notifications: 5 }] },
    ]);
    expect(issues.map((i) => [i.code, i.path, i.certainty])).toEqual([
      ['trigger-interval', 'triggers[0].notifications[0].seconds_between_notifications', undefined],
      ['trigger-name', 'triggers[1].name', undefined],
    ]);
  });
});

describe('webhook URLs carrying a token are secrets', () => {
  test.each([
    ['https://hooks.example.com/machines?token=s3cr3t-value', true],
    ['https://robot:pa55word@hooks.example.com/machines', true],
    ['https://hooks.example.com/machines', false],
    ['not a url?token=x', false],
  ])('%s: %s', (url, secret) => {
    expect(webhookCarriesToken(url)).toBe(secret);
  });

  test('the language finds them (and no e-mail address, no plain URL)', () => {
    const config = {
      triggers: [
        {
          name: 'alert',
          event: { type: 'part_offline' },
          notifications: [
            { type: 'webhook', value: 'https://hooks.example.com/a?token=s3cr3t-value' },
            { type: 'webhook', value: 'https://hooks.example.com/b' },
            { type: 'email', value: 'ops?x@example.com' },
            { type: 'webhook', value: '${environment.HOOK_URL}' },
          ],
        },
      ],
    };
    expect(configSecrets(config).map((s) => s.path)).toEqual(['triggers[0].notifications[0].value']);
  });

  test('text leaving a process shows a webhook by its origin alone', () => {
    expect(webhookShown('https://user:pw@hooks.example.com:8443/x/y?token=abc')).toBe('https://hooks.example.com:8443/…');
    expect(webhookShown('nope')).toBe('(not a URL)');
  });
});
