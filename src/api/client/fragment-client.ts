/**
 * The AppService's fragment calls as plain data: fragments with their config as JSON,
 * revisions, tags, usage, and the resolution of a machine's or a fragment's imports.
 * Reads and guarded updates are retried on transient errors; creates, unguarded updates,
 * deletes and tag changes run once.
 */
import { Struct, Timestamp, type JsonValue } from '@bufbuild/protobuf';
import { decodeStruct, type StructObject } from '../struct-codec';
import type { AppWireServiceType } from '../services';
import type * as pb from '../generated/viam/app/v1/fragments_pb';
import type { Invoker } from './call';
import { dateOf } from './convert';
import { ServiceError } from './errors';

/** Who may see a fragment: its organization only, anyone (listed), or anyone with its id. */
export type FragmentVisibility = 'private' | 'public' | 'public_unlisted';

const VISIBILITY_NUMBERS: Readonly<Record<FragmentVisibility, number>> = { private: 1, public: 2, public_unlisted: 3 };
const VISIBILITY_NAMES: Readonly<Record<number, FragmentVisibility>> = { 1: 'private', 2: 'public', 3: 'public_unlisted' };

/** A fragment at one revision. */
export interface FragmentInfo {
  readonly id: string;
  readonly name: string;
  readonly organizationId: string;
  readonly organizationName: string;
  readonly config: Record<string, unknown>;
  readonly visibility: FragmentVisibility;
  readonly revision: string;
  readonly createdOn?: Date;
  /** The time of its latest save: pass it back to `updateFragment` for optimistic concurrency. */
  readonly lastUpdated?: Date;
  /** Machines and organizations that use it. */
  readonly machineCount: number;
  readonly organizationCount: number;
}

/** How many machines use a fragment, at one version (undefined: the latest revision, or every version). */
export interface FragmentUsageInfo {
  readonly fragmentId: string;
  readonly version: string | undefined;
  readonly machines: number;
  readonly organizations: number;
  readonly machinesInOwnOrganization: number;
}

export interface FragmentTagInfo {
  readonly tag: string;
  readonly revision: string;
}

/** A fragment with its revisions (newest first), tags and usage. */
export interface FragmentDetail {
  readonly fragment: FragmentInfo;
  readonly revisions: ReadonlyArray<{ readonly revision: string; readonly createdAt?: Date }>;
  readonly tags: readonly FragmentTagInfo[];
  readonly usage: FragmentUsageInfo;
}

/** One save of a fragment: its revision and config, and the fragment as it was before (none for the creation). */
export interface FragmentHistoryItem {
  readonly revision: string;
  readonly editedOn?: Date;
  /** The API key id (or other principal) that saved it. */
  readonly editedBy: string;
  readonly config: Record<string, unknown>;
  readonly before: FragmentInfo | undefined;
}

/** Why an import brings nothing. */
export type FragmentErrorKind = 'no_access' | 'nesting_limit_exceeded' | 'child_id_invalid' | 'cycle_detected' | 'unspecified';

/** An import as the service resolved it. */
export interface ResolvedFragmentInfo {
  readonly fragmentId: string;
  readonly revision: string;
  readonly config: Record<string, unknown> | undefined;
  readonly error: { readonly kind: FragmentErrorKind; readonly fragmentId: string; readonly detail: string } | undefined;
}

export interface FragmentResolutionInfo {
  readonly fragments: readonly FragmentInfo[];
  readonly resolved: readonly ResolvedFragmentInfo[];
}

/** A fragment import to resolve along with a machine's or fragment's own: an id and a revision or tag. */
export interface AdditionalFragmentImport {
  readonly fragmentId: string;
  readonly version?: string;
}

export interface FragmentClient {
  createFragment(
    organizationId: string,
    name: string,
    config: Record<string, unknown>,
    visibility?: FragmentVisibility,
  ): Promise<FragmentInfo>;
  /** A fragment at `version` (a revision or tag; the latest revision without one). */
  getFragment(id: string, version?: string): Promise<FragmentDetail>;
  /** The organization's fragments, and other organizations' public ones with `showPublic`. */
  listFragments(
    organizationId: string,
    options?: { showPublic?: boolean; visibilities?: readonly FragmentVisibility[] },
  ): Promise<FragmentInfo[]>;
  /**
   * Saves a new revision. With `lastKnownUpdate` (the fragment's `lastUpdated` as read) the
   * service refuses the save if the fragment was saved since; such a guarded save is also
   * retried on transient errors.
   */
  updateFragment(
    id: string,
    name: string,
    config: Record<string, unknown>,
    options?: { visibility?: FragmentVisibility; lastKnownUpdate?: Date },
  ): Promise<FragmentInfo>;
  deleteFragment(id: string): Promise<void>;
  /** The saves of a fragment, newest first, a page at a time. */
  getFragmentHistory(
    id: string,
    page?: { pageToken?: string; pageLimit?: number },
  ): Promise<{ history: FragmentHistoryItem[]; nextPageToken: string }>;
  /** The machines that use a fragment, one entry per version they import it at. */
  getFragmentUsage(fragmentId: string): Promise<FragmentUsageInfo[]>;
  /** Points `tag` at `revision`; resolves to every tag of the fragment after the change. */
  setFragmentTag(fragmentId: string, tag: string, revision: string): Promise<FragmentTagInfo[]>;
  deleteFragmentTag(fragmentId: string, tag: string): Promise<FragmentTagInfo[]>;
  /** The fragments nested in a fragment (and in `additional` ones), with each import resolved. */
  listNestedFragments(fragmentId: string | undefined, additional?: readonly AdditionalFragmentImport[]): Promise<FragmentResolutionInfo>;
  /** The fragments a machine's config reaches (with `additional` ones), with each import resolved. */
  listMachineFragments(machineId: string, additional?: readonly AdditionalFragmentImport[]): Promise<FragmentResolutionInfo>;
}

function configOf(s: Struct | undefined): Record<string, unknown> {
  return s === undefined ? {} : decodeStruct(s.toBinary());
}

function structOf(config: Record<string, unknown>): Struct {
  return Struct.fromJson(config as StructObject as JsonValue);
}

function fragmentOf(f: pb.Fragment): FragmentInfo {
  return {
    id: f.id,
    name: f.name,
    organizationId: f.organizationOwner,
    organizationName: f.organizationName,
    config: configOf(f.fragment),
    visibility: VISIBILITY_NAMES[f.visibility] ?? (f.public ? 'public' : 'private'),
    revision: f.revision,
    createdOn: dateOf(f.createdOn),
    lastUpdated: dateOf(f.lastUpdated),
    machineCount: f.robotPartCount,
    organizationCount: f.organizationCount,
  };
}

function usageOf(u: pb.FragmentUsage): FragmentUsageInfo {
  return {
    fragmentId: u.fragmentId,
    version: u.version,
    machines: u.machines,
    organizations: u.organizations,
    machinesInOwnOrganization: u.machinesInCurrentOrg,
  };
}

const ERROR_KINDS: Readonly<Record<number, FragmentErrorKind>> = {
  1: 'no_access',
  2: 'nesting_limit_exceeded',
  3: 'child_id_invalid',
  4: 'cycle_detected',
};

function resolutionOf(res: { fragments: pb.Fragment[]; resolvedFragments: pb.ResolvedFragment[] }): FragmentResolutionInfo {
  return {
    fragments: res.fragments.map(fragmentOf),
    resolved: res.resolvedFragments.map((r) => ({
      fragmentId: r.fragmentId,
      revision: r.revision,
      config: r.resolvedConfig === undefined ? undefined : configOf(r.resolvedConfig),
      error:
        r.error === undefined
          ? undefined
          : { kind: ERROR_KINDS[r.error.errorType] ?? 'unspecified', fragmentId: r.error.fragmentId, detail: r.error.detail },
    })),
  };
}

const tagsOf = (tags: pb.FragmentTag[]): FragmentTagInfo[] => tags.map((t) => ({ tag: t.tag, revision: t.revision }));

export function createFragmentClient(call: Invoker<AppWireServiceType>): FragmentClient {
  const missing = (method: string): ServiceError => new ServiceError('UNKNOWN', `AppService.${method}`, 'the response has no fragment');

  return {
    async createFragment(organizationId, name, config, visibility) {
      const res = await call('createFragment', false, (c, o) =>
        c.createFragment(
          { organizationId, name, config: structOf(config), ...(visibility ? { visibility: VISIBILITY_NUMBERS[visibility] } : {}) },
          o,
        ),
      );
      if (!res.fragment) throw missing('CreateFragment');
      return fragmentOf(res.fragment);
    },

    async getFragment(id, version) {
      const res = await call('getFragment', true, (c, o) => c.getFragment({ id, ...(version ? { version } : {}) }, o));
      if (!res.fragment) throw missing('GetFragment');
      return {
        fragment: fragmentOf(res.fragment),
        revisions: res.revisions.map((r) => ({ revision: r.revision, createdAt: dateOf(r.createdAt) })),
        tags: tagsOf(res.tags),
        usage: usageOf(
          res.fragmentUsage ?? ({ fragmentId: id, machines: 0, organizations: 0, machinesInCurrentOrg: 0 } as pb.FragmentUsage),
        ),
      };
    },

    async listFragments(organizationId, options = {}) {
      const res = await call('listFragments', true, (c, o) =>
        c.listFragments(
          {
            organizationId,
            showPublic: options.showPublic ?? false,
            fragmentVisibility: (options.visibilities ?? []).map((v) => VISIBILITY_NUMBERS[v]),
          },
          o,
        ),
      );
      return res.fragments.map(fragmentOf);
    },

    async updateFragment(id, name, config, options = {}) {
      const guard = options.lastKnownUpdate === undefined ? undefined : Timestamp.fromDate(options.lastKnownUpdate);
      const res = await call('updateFragment', guard !== undefined, (c, o) =>
        c.updateFragment(
          {
            id,
            name,
            config: structOf(config),
            ...(options.visibility ? { visibility: VISIBILITY_NUMBERS[options.visibility] } : {}),
            ...(guard ? { lastKnownUpdate: guard } : {}),
          },
          o,
        ),
      );
      if (!res.fragment) throw missing('UpdateFragment');
      return fragmentOf(res.fragment);
    },

    async deleteFragment(id) {
      await call('deleteFragment', false, (c, o) => c.deleteFragment({ id }, o));
    },

    async getFragmentHistory(id, page = {}) {
      const res = await call('getFragmentHistory', true, (c, o) =>
        c.getFragmentHistory(
          {
            id,
            ...(page.pageToken ? { pageToken: page.pageToken } : {}),
            ...(page.pageLimit ? { pageLimit: BigInt(page.pageLimit) } : {}),
          },
          o,
        ),
      );
      return {
        history: res.history.map((h) => ({
          revision: h.revision,
          editedOn: dateOf(h.editedOn),
          editedBy: h.editedBy?.value ?? '',
          config: configOf(h.config),
          before: h.old === undefined ? undefined : fragmentOf(h.old),
        })),
        nextPageToken: res.nextPageToken,
      };
    },

    async getFragmentUsage(fragmentId) {
      const res = await call('getFragmentUsage', true, (c, o) => c.getFragmentUsage({ fragmentId }, o));
      return res.versionUsages.map(usageOf);
    },

    async setFragmentTag(fragmentId, tag, revision) {
      // Pointing a tag at the same revision again changes nothing: safe to retry.
      const res = await call('setFragmentTag', true, (c, o) => c.setFragmentTag({ fragmentId, tag, revision }, o));
      return tagsOf(res.tags);
    },

    async deleteFragmentTag(fragmentId, tag) {
      const res = await call('deleteFragmentTag', false, (c, o) => c.deleteFragmentTag({ fragmentId, tag }, o));
      return tagsOf(res.tags);
    },

    async listNestedFragments(fragmentId, additional = []) {
      const res = await call('listNestedFragments', true, (c, o) =>
        c.listNestedFragments(
          {
            ...(fragmentId ? { fragmentId } : {}),
            additionalFragments: additional.map((a) => ({ fragmentId: a.fragmentId, ...(a.version ? { version: a.version } : {}) })),
          },
          o,
        ),
      );
      return resolutionOf(res);
    },

    async listMachineFragments(machineId, additional = []) {
      const res = await call('listMachineFragments', true, (c, o) =>
        c.listMachineFragments(
          {
            machineId,
            additionalFragments: additional.map((a) => ({ fragmentId: a.fragmentId, ...(a.version ? { version: a.version } : {}) })),
          },
          o,
        ),
      );
      return resolutionOf(res);
    },
  };
}
