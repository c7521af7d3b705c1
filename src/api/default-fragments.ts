/**
 * An organization's default fragments between fleetform's form (a machine config's
 * `fragments` entries: `{ id, version?, prefix?, variables? }`) and the wire's
 * `FragmentImport`. Variables travel typed in `fragment_variables`; an import read with only
 * the older strings-only `variables` has those as its variables.
 */
import { Struct, type JsonObject as WireJsonObject } from '@bufbuild/protobuf';
import type { JsonObject } from '../domain/json-value';
import { normalDefaultImport, type DefaultFragmentImport } from '../domain/organization-defaults';
import { FragmentImport, FragmentImportList } from './generated/viam/app/v1/organization_defaults_pb';

/** The wire's import of one default fragment. */
export function fragmentImportMessage(i: DefaultFragmentImport): FragmentImport {
  const variables = i.variables && Object.keys(i.variables).length > 0 ? i.variables : undefined;
  return new FragmentImport({
    fragmentId: i.id,
    version: i.version ?? '',
    ...(i.prefix ? { prefix: i.prefix } : {}),
    ...(variables ? { fragmentVariables: Struct.fromJson(variables as WireJsonObject) } : {}),
  });
}

/** The list UpdateOrganization sends: an empty one clears the organization's defaults. */
export function fragmentImportList(imports: readonly DefaultFragmentImport[]): FragmentImportList {
  return new FragmentImportList({ fragments: imports.map(fragmentImportMessage) });
}

/** One wire import in fleetform's form: typed variables when the import has them, else its strings. */
export function defaultImportOf(m: FragmentImport): DefaultFragmentImport {
  const typed = m.fragmentVariables ? (m.fragmentVariables.toJson() as JsonObject) : undefined;
  const strings = Object.keys(m.variables).length > 0 ? { ...m.variables } : undefined;
  const variables = typed && Object.keys(typed).length > 0 ? typed : strings;
  return normalDefaultImport({
    id: m.fragmentId,
    ...(m.version ? { version: m.version } : {}),
    ...(m.prefix ? { prefix: m.prefix } : {}),
    ...(variables ? { variables } : {}),
  });
}

/** The defaults an organization message holds (none when it has no list). */
export function defaultImportsOfList(list: FragmentImportList | undefined): DefaultFragmentImport[] {
  return (list?.fragments ?? []).map(defaultImportOf);
}
