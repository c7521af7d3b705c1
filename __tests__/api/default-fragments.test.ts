/**
 * Default fragments as code gives them (JSON text in a machine config's import form) and as
 * the wire carries them (FragmentImport): parsed with each problem naming its path, and
 * round-tripped exactly, typed variables included; the older strings-only variables read.
 */
import { defaultImportOf, fragmentImportList, fragmentImportMessage } from '../../src/api/default-fragments';
import { FragmentImport, FragmentImportList } from '../../src/api/generated/viam/app/v1/organization_defaults_pb';
import { parseDefaultFragments } from '../../src/domain/organization-defaults';

const typed = { id: 'f1', version: 'stable', prefix: 'front', variables: { pin: 11, fast: true, limits: { max: 3, names: ['x', null] } } };

test('a list of imports parses to the imports, unset parts and empty variables left out', () => {
  const parsed = parseDefaultFragments(JSON.stringify([typed, { id: 'f2', variables: {} }]));
  expect(parsed).toEqual({ ok: true, imports: [typed, { id: 'f2' }] });
});

test('each problem names its path and the fix', () => {
  const problems = (text: string) => {
    const parsed = parseDefaultFragments(text);
    return parsed.ok ? [] : parsed.problems.map((p) => [p.path, p.message, p.hint]);
  };
  expect(problems('{')[0]?.[0]).toBe('fragments');
  expect(problems('[{"id":""}]')[0]?.[0]).toBe('fragments[0].id');
  expect(problems('[{"id":"f","version":""}]')[0]?.[1]).toContain('revision number or a tag');
  const disabled = problems('[{"id":"f","disabled":true}]')[0];
  expect(disabled?.[0]).toBe('fragments[0].disabled');
  expect(disabled?.[2]).toContain('give them on each machine');
  expect(problems('[{"fragment_id":"f"}]').map((p) => p[0])).toEqual(expect.arrayContaining(['fragments[0].fragment_id']));
  expect(problems('[{"id":"f"},{"id":"f","prefix":"a"},{"id":"f"}]')).toEqual([
    ['fragments[2]', 'fragments[2] imports fragment f again (as fragments[0] does)', 'import a fragment twice only with two prefixes'],
  ]);
});

test('an import goes through the wire and back exactly: typed variables in fragment_variables, an empty version as none', () => {
  const bytes = fragmentImportList([typed, { id: 'f2' }]).toBinary();
  const read = FragmentImportList.fromBinary(bytes);
  expect(read.fragments.map(defaultImportOf)).toEqual([typed, { id: 'f2' }]);
  expect(read.fragments[1]?.version).toBe('');
  expect(read.fragments[1]?.fragmentVariables).toBeUndefined();
  expect(fragmentImportMessage(typed).variables).toEqual({});
});

test('the older strings-only variables are read when the typed ones are absent; the typed ones win', () => {
  expect(defaultImportOf(new FragmentImport({ fragmentId: 'f', variables: { pin: '7' } }))).toEqual({ id: 'f', variables: { pin: '7' } });
  const both = FragmentImport.fromBinary(new FragmentImport({ ...fragmentImportMessage(typed), variables: { pin: 'ignored' } }).toBinary());
  expect(defaultImportOf(both).variables).toEqual(typed.variables);
});
