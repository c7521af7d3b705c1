/**
 * A machine config's `triggers` as plans compare them: keyed by name when every trigger has
 * a name of its own, else as written (the service stores any JSON there), and back to the
 * list the service holds; a webhook URL carrying a token is a masked path of the view.
 */
import { configDocument, configView } from '../../src/engine/kinds/machine-config-view';
import { secretEnvEntries } from '../../src/engine/kinds/machine-secrets';

const online = { name: 'online', event: { type: 'part_online' }, notifications: [{ type: 'email', value: 'ops@example.com' }] };
const offline = {
  name: 'offline',
  event: { type: 'part_offline' },
  notifications: [{ type: 'webhook', value: 'https://hooks.example.com/x?token=abcdef123456' }],
};

test('named triggers are keyed by name, and written back in the stored order', () => {
  const view = configView({ triggers: [online, offline] });
  expect(view.triggers).toEqual({ online, offline });
  expect(configDocument({ triggers: { offline, online } }, { triggers: [online, offline] }).triggers).toEqual([online, offline]);
});

test.each([
  ['null, as the official CLI leaves it after deleting the last one', null],
  ['an entry without a name', [online, { event: { type: 'part_online' } }]],
  ['a name twice', [online, online]],
  ['an entry that is no object', [online, 'later']],
])('%s: compared and written as written', (_, triggers) => {
  const view = configView({ triggers });
  expect(view.triggers).toEqual(triggers);
  expect(configDocument(view, { triggers }).triggers).toEqual(triggers);
});

test('a token-carrying webhook URL is masked at its keyed path, an e-mail is not', () => {
  const view = { config: configView({ triggers: [online, offline] }) };
  expect(secretEnvEntries.paths(view, {})).toEqual(['config.triggers.offline.notifications[0].value']);
});
