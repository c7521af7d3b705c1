/**
 * GetOrganization and UpdateOrganization: an organization's name and its default fragments,
 * the imports every machine created in it starts with (the main part's config of a new
 * machine imports them, with their versions, prefixes and variables).
 */
import type { ServiceImpl } from '@connectrpc/connect';
import type { DefaultFragmentImport } from '../../domain/organization-defaults';
import { defaultImportOf, fragmentImportMessage } from '../../api/default-fragments';
import type { FragmentImport, FragmentImportList } from '../../api/generated/viam/app/v1/organization_defaults_pb';
import type { AppWireServiceType } from '../../api/services';
import { principalOf, timestamp, type Backend } from './context';
import * as accounts from '../store/accounts';
import { getFragment } from '../store/fragments';
import { importable } from '../logic/fragment-resolution';
import { organizationFor } from './access';
import { Code, ConnectError } from '@connectrpc/connect';
import { invalidArgument } from './errors';

type OrganizationHandlers = Pick<ServiceImpl<AppWireServiceType>, 'getOrganization' | 'updateOrganization'>;

/** A stored import on the wire: typed variables, and those that are strings in the older strings-only map too. */
function wireImport(i: DefaultFragmentImport): FragmentImport {
  const message = fragmentImportMessage(i);
  for (const [key, value] of Object.entries(i.variables ?? {})) if (typeof value === 'string') message.variables[key] = value;
  return message;
}

/** viam.app.v1.Organization; `default_fragments` is set when it has any. */
export function organizationMessage(o: accounts.OrganizationRecord) {
  return {
    id: o.id,
    name: o.name,
    createdOn: timestamp(o.createdOn),
    publicNamespace: o.publicNamespace,
    defaultRegion: 'emulator',
    ...(o.defaultFragments.length > 0 ? { defaultFragments: { fragments: o.defaultFragments.map(wireImport) } } : {}),
  };
}

/** The imports a request sets, each naming a fragment the organization's machines may import. */
function requestedDefaults(backend: Backend, organizationId: string, list: FragmentImportList): DefaultFragmentImport[] {
  return list.fragments.map((m, n) => {
    const at = `default_fragments.fragments[${n}]`;
    if (m.fragmentId.trim() === '') throw invalidArgument(`${at}.fragment_id is required`);
    const fragment = getFragment(backend.db, m.fragmentId);
    if (!fragment || !importable(fragment, organizationId))
      throw invalidArgument(`${at}.fragment_id: no fragment ${m.fragmentId} the organization's machines may import`);
    return defaultImportOf(m);
  });
}

export function organizationHandlers(backend: Backend): OrganizationHandlers {
  const { db } = backend;
  return {
    getOrganization(req, ctx) {
      return { organization: organizationMessage(organizationFor(db, principalOf(ctx), req.organizationId, 'read')) };
    },

    updateOrganization(req, ctx) {
      const org = organizationFor(db, principalOf(ctx), req.organizationId, 'write');
      if (req.publicNamespace !== undefined || req.region !== undefined || req.cid !== undefined)
        throw new ConnectError(
          'the emulator keeps an organization’s name and default fragments only: public_namespace, region and cid are not emulated',
          Code.Unimplemented,
        );
      const name = req.name === undefined ? org.name : req.name.trim();
      if (name === '') throw invalidArgument('name: an organization needs a name (leave name out to keep it)');
      const defaults = req.defaultFragments === undefined ? org.defaultFragments : requestedDefaults(backend, org.id, req.defaultFragments);
      accounts.updateOrganization(db, org.id, name, defaults);
      return { organization: organizationMessage(accounts.getOrganization(db, org.id) as accounts.OrganizationRecord) };
    },
  };
}

/** The main part's config of a machine created in the organization: importing its default fragments (none: empty). */
export function newMachineConfig(org: accounts.OrganizationRecord | undefined): string | undefined {
  if (!org || org.defaultFragments.length === 0) return undefined;
  return JSON.stringify({ fragments: org.defaultFragments });
}
