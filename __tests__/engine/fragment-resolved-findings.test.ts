/**
 * What plan finds of a machine importing fragments: the machine config rules over what it
 * runs, resolved with a fragment its stack declares (before or after that exists) or one
 * read from the service; an import it cannot read leaves what it lacks a warning.
 */
import { fragmentLookup } from '../../src/domain/fragments';
import { declaredFetch, resolutionFindings, type DeclaredFragment } from '../../src/engine/kinds/machine-fragments';
import { resolveFetching, type FragmentFetch } from '../../src/engine/fragment-fetch';
import { partConfigRules } from '../../src/engine/kinds/machine-part-config';

const RIG = { modules: [{ type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '^1' }] };

/** The service's fragments, as data: `applied` at revision 1. */
const fromService: () => FragmentFetch = () => {
  const lookup = fragmentLookup([{ id: 'applied', name: 'sensor-rig', revisions: [{ revision: '1', config: RIG }] }]);
  return (id, version) => Promise.resolve(lookup(id, version));
};

/** A fetch as plan makes it: the stack's fragments (by id) as declared, others from the service. */
function planFetch(declared: Record<string, DeclaredFragment>): FragmentFetch {
  return declaredFetch((id) => Promise.resolve(declared[id]), fromService());
}

const rover = (fragmentId: string, model: string) => ({
  components: [{ name: 'sonar', api: 'rdk:component:sensor', model }],
  modules: [],
  fragments: [{ id: fragmentId }],
});

async function findings(fetch: FragmentFetch, config: Record<string, unknown>, acknowledged = [] as Parameters<typeof partConfigRules>[0]) {
  return resolutionFindings('rover', await resolveFetching('rover', config, fetch), partConfigRules(acknowledged));
}

describe.each([
  [
    'a fragment this apply creates (its stand-in declared as planned)',
    'stand-in-id',
    { 'stand-in-id': { name: 'sensor-rig', config: RIG, planned: true } },
  ],
  ['a fragment of the stack that exists (declared under its id)', 'applied', { applied: { name: 'sensor-rig', config: RIG } }],
  ['a fragment read from the service', 'applied', {}],
])('a machine importing %s', (_what, id, declared) => {
  test("its model of a module neither it nor the fragment has is an error naming the machine, the path, the fragment's module ids and the fix", async () => {
    const { problems, notes } = await findings(planFetch(declared), rover(id, 'acme:sensorz:hc-sr04'));
    expect(notes).toEqual([]);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe('config.components.sonar.model');
    expect(problems[0]?.message).toBe(
      'machine rover: components.sonar.model: resource "sonar" will not start: model "acme:sensorz:hc-sr04" needs a module with module_id "acme:sensorz"; configured module ids: acme:sensors',
    );
    expect(problems[0]?.hint).toMatch(/^add a module with "module_id": "acme:sensorz".*acknowledge it/);
  });

  test('its model of the module the fragment brings gives nothing', async () => {
    expect(await findings(planFetch(declared), rover(id, 'acme:sensors:hc-sr04'))).toEqual({ problems: [], notes: [] });
  });

  test('an acknowledgment makes the error a warning quoting the reason', async () => {
    const ack = [{ code: 'model-module-mismatch', path: 'components.sonar.model', reason: 'renamed next week' }];
    const { problems, notes } = await findings(planFetch(declared), rover(id, 'acme:sensorz:hc-sr04'), ack);
    expect(problems).toEqual([]);
    expect(notes.map((n) => [n.level, n.path])).toEqual([['warning', 'config.components.sonar.model']]);
    expect(notes[0]?.message).toMatch(/\(acknowledged: renamed next week\)$/);
  });
});

test('a fragment that cannot be read leaves the machine a warning: what it lacks may come from it', async () => {
  const { problems, notes } = await findings(planFetch({}), rover('nobody-has-it', 'acme:sensorz:hc-sr04'));
  expect(problems).toEqual([]);
  expect(notes.map((n) => [n.level, n.path])).toEqual([
    ['warning', 'config.fragments[0]'],
    ['warning', 'config.components.sonar.model'],
  ]);
});
