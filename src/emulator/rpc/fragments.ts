/**
 * The AppService's fragment calls. A fragment belongs to an organization: its members read
 * it (anyone reads a public or unlisted one), its owners change it.
 * - Every UpdateFragment saves a new revision ("1", "2", ...); `last_known_update` older than
 *   the latest save answers FAILED_PRECONDITION and saves nothing.
 * - A version is a revision number or a tag; an unknown one answers NOT_FOUND.
 * - Tags: lowercase letters, digits, `-` and `_`, not starting with a digit or `v`, at most 60
 *   characters (INVALID_ARGUMENT otherwise); a tag names an existing revision.
 * - DeleteFragment refuses (FAILED_PRECONDITION, naming them) while a machine's config or
 *   another fragment's latest revision imports the fragment: nothing that uses it is broken.
 * - ListFragments with `show_public` adds other organizations' public fragments.
 * - Usage counts the machines whose configs reach the fragment (nested imports included),
 *   one FragmentUsage per version they import it at (version unset: the latest).
 */
import { Struct, type JsonValue } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { FragmentErrorCode, MachineResolution, ResolvedFragmentImport } from '../../domain/fragments';
import type { AppWireServiceType } from '../../api/services';
import { decodeStruct } from '../../api/struct-codec';
import { knowsOrganization, type Principal } from '../auth/principal';
import type { Db } from '../db/database';
import { MachineConfigSchema } from '../../domain/config';
import { planDeployments } from '../logic/deployments';
import {
  FragmentVisibility,
  fragmentUsage,
  resolvedModules,
  importable,
  resolvePart,
  revisionOf,
  storeLookup,
  totalUse,
  type VersionUse,
} from '../logic/fragment-resolution';
import * as accounts from '../store/accounts';
import * as store from '../store/fragments';
import * as machines from '../store/machines';
import { deploymentsOfPart, replaceDeployments } from '../store/deployments';
import { moduleVersionsLookup } from './registry';
import { partViamServerVersion } from '../store/server-versions';
import { organizationFor, robotFor, type Need } from './access';
import { millisOf, principalOf, timestamp, type Backend } from './context';
import { failedPrecondition, invalidArgument, notFound, permissionDenied, required } from './errors';

/** viam.app.v1.FragmentErrorType numbers. */
const FragmentErrorType = { NO_ACCESS: 1, NESTING_LIMIT_EXCEEDED: 2, CHILD_ID_INVALID: 3, CYCLE_DETECTED: 4 } as const;
/** `viam.app.v1.AuthenticationType.API_KEY`: every edit is made with an API key. */
const AUTHENTICATION_TYPE_API_KEY = 2;

const TAG = /^[a-z_-][a-z0-9_-]{0,59}$/;
const REVISION = /^[1-9]\d{0,15}$/;
const VISIBILITIES: readonly number[] = [FragmentVisibility.PRIVATE, FragmentVisibility.PUBLIC, FragmentVisibility.PUBLIC_UNLISTED];

/** Why a tag name is refused, if it is. */
export function tagProblem(tag: string): string | undefined {
  if (tag === '') return 'tag is required';
  if (TAG.test(tag) && !tag.startsWith('v')) return undefined;
  return `tag ${JSON.stringify(tag)}: use lowercase letters, digits, "-" and "_", not starting with a digit or "v", at most 60 characters`;
}

const EMPTY_USE: VersionUse = { robots: new Set(), organizations: new Set(), robotsInOwnOrg: new Set() };

function fragmentFor(db: Db, p: Principal, id: string, need: Need): store.FragmentRecord {
  required(id, 'id');
  const f = store.getFragment(db, id);
  const visible =
    f !== undefined &&
    (knowsOrganization(p, f.organizationId) ||
      f.visibility === FragmentVisibility.PUBLIC ||
      f.visibility === FragmentVisibility.PUBLIC_UNLISTED);
  if (!f || !visible) throw notFound(`fragment ${id} not found`);
  if (need === 'write') {
    if (!knowsOrganization(p, f.organizationId))
      throw permissionDenied(`owner permission required on organization ${f.organizationId} to change fragment ${id}`);
    organizationFor(db, p, f.organizationId, 'write');
  }
  return f;
}

/** The config of a request as stored: every key kept (`__proto__` included). */
function configText(config: Struct | undefined): string {
  return JSON.stringify(config ? decodeStruct(config.toBinary()) : {});
}

function visibilityOf(requested: number | undefined, legacyPublic: boolean | undefined, current: number): number {
  if (requested !== undefined && requested !== FragmentVisibility.UNSPECIFIED) {
    if (!VISIBILITIES.includes(requested)) throw invalidArgument(`visibility: unknown fragment visibility ${requested}`);
    return requested;
  }
  if (legacyPublic !== undefined) return legacyPublic ? FragmentVisibility.PUBLIC : FragmentVisibility.PRIVATE;
  return current;
}

/** The FragmentError of an import that brings nothing. */
function fragmentError(db: Db, i: ResolvedFragmentImport, organizationId: string) {
  const code: FragmentErrorCode | undefined = i.error?.code;
  if (!i.error || code === undefined) return undefined;
  let errorType: number = FragmentErrorType.CHILD_ID_INVALID;
  if (code === 'nesting-limit') errorType = FragmentErrorType.NESTING_LIMIT_EXCEEDED;
  else if (code === 'cycle') errorType = FragmentErrorType.CYCLE_DETECTED;
  else if (code === 'unknown-fragment') {
    const f = store.getFragment(db, i.id);
    if (f && !importable(f, organizationId)) errorType = FragmentErrorType.NO_ACCESS;
  }
  return { errorType, fragmentId: i.id, detail: i.error.message };
}

export function fragmentHandlers(backend: Backend): Partial<ServiceImpl<AppWireServiceType>> {
  const { db } = backend;

  /** After a fragment change: every part importing fragments deploys the modules its resolved config now holds. */
  function redeployFragmentUsers(): void {
    const now = backend.now();
    for (const row of store.partsWithFragments(db)) {
      const part = machines.getPart(db, row.partId);
      if (!part) continue;
      const json = JSON.parse(part.config) as unknown;
      const own = MachineConfigSchema.safeParse(json);
      const modules = resolvedModules(db, part, json, own.success ? own.data : {});
      replaceDeployments(
        db,
        part.id,
        planDeployments(
          part.id,
          modules,
          deploymentsOfPart(db, part.id),
          moduleVersionsLookup(db, part.organizationId),
          now,
          partViamServerVersion(db, part.id, true),
        ).deployments,
      );
    }
  }

  function fragmentMessage(f: store.FragmentRecord, revision: store.FragmentRevisionRecord, use: VersionUse) {
    const org = accounts.getOrganization(db, f.organizationId);
    const latest = revision.revision === f.latestRevision;
    return {
      id: f.id,
      name: latest ? f.name : revision.name,
      fragment: Struct.fromJson(JSON.parse(revision.config) as JsonValue),
      organizationOwner: f.organizationId,
      public: revision.visibility === FragmentVisibility.PUBLIC,
      createdOn: timestamp(f.createdOn),
      organizationName: org?.name ?? '',
      robotPartCount: use.robots.size,
      organizationCount: use.organizations.size,
      onlyUsedByOwner: [...use.organizations].every((o) => o === f.organizationId),
      visibility: revision.visibility,
      lastUpdated: timestamp(latest ? f.lastUpdated : revision.createdAt),
      revision: String(revision.revision),
      publicNamespace: org?.publicNamespace ?? '',
    };
  }

  function usageMessage(fragmentId: string, use: VersionUse, version?: string) {
    return {
      fragmentId,
      organizations: use.organizations.size,
      machines: use.robots.size,
      machinesInCurrentOrg: use.robotsInOwnOrg.size,
      ...(version === undefined ? {} : { version }),
    };
  }

  function atRevision(f: store.FragmentRecord, n: number): store.FragmentRevisionRecord {
    const r = store.getRevision(db, f.id, n);
    if (!r) throw notFound(`fragment ${f.id} has no revision ${n}`);
    return r;
  }

  /** The fragments a resolution reaches and the resolution of each import. */
  function resolutionMessages(resolution: MachineResolution, organizationId: string, listed: (i: ResolvedFragmentImport) => boolean) {
    const usage = fragmentUsage(db);
    const fragments = new Map<string, ReturnType<typeof fragmentMessage>>();
    const resolved = resolution.imports.map((i) => {
      const f = store.getFragment(db, i.id);
      if (f && i.revision !== undefined && listed(i) && !fragments.has(`${i.id}@${i.revision}`)) {
        fragments.set(`${i.id}@${i.revision}`, fragmentMessage(f, atRevision(f, Number(i.revision)), totalUse(usage.get(i.id))));
      }
      const error = fragmentError(db, i, organizationId);
      return {
        fragmentId: i.id,
        revision: i.revision ?? '',
        ...(i.config === undefined ? {} : { resolvedConfig: Struct.fromJson(i.config as JsonValue) }),
        ...(error === undefined ? {} : { error }),
      };
    });
    return { fragments: [...fragments.values()], resolvedFragments: resolved };
  }

  return {
    createFragment(req, ctx) {
      const p = principalOf(ctx);
      const org = organizationFor(db, p, req.organizationId, 'write');
      const name = required(req.name, 'name').trim();
      const visibility = visibilityOf(req.visibility, undefined, FragmentVisibility.PRIVATE);
      const id = db
        .transaction(() =>
          store.insertFragment(
            db,
            { organizationId: org.id, name, visibility, config: configText(req.config), editedBy: p.keyId },
            backend.now(),
          ),
        )
        .immediate();
      const f = store.getFragment(db, id) as store.FragmentRecord;
      return { fragment: fragmentMessage(f, atRevision(f, 1), EMPTY_USE) };
    },

    updateFragment(req, ctx) {
      const p = principalOf(ctx);
      const lastKnown = req.lastKnownUpdate ? millisOf(req.lastKnownUpdate) : undefined;
      const saved = db
        .transaction(() => {
          const f = fragmentFor(db, p, req.id, 'write');
          if (lastKnown !== undefined && f.lastUpdated > lastKnown) {
            throw failedPrecondition(
              `fragment ${f.id} was saved at ${new Date(f.lastUpdated).toISOString()} (revision ${f.latestRevision}), after last_known_update ` +
                `${new Date(lastKnown).toISOString()}; fetch the fragment again and reapply the change`,
            );
          }
          const name = req.name.trim() === '' ? f.name : req.name.trim();
          const visibility = visibilityOf(req.visibility, req.public, f.visibility);
          const config = req.config ? configText(req.config) : atRevision(f, f.latestRevision).config;
          store.saveRevision(db, f, { name, visibility, config, editedBy: p.keyId }, backend.now());
          redeployFragmentUsers();
          return store.getFragment(db, f.id) as store.FragmentRecord;
        })
        .immediate();
      return { fragment: fragmentMessage(saved, atRevision(saved, saved.latestRevision), totalUse(fragmentUsage(db).get(saved.id))) };
    },

    getFragment(req, ctx) {
      const f = fragmentFor(db, principalOf(ctx), req.id, 'read');
      const n = revisionOf(db, f, req.version);
      if (n === undefined) throw notFound(`fragment ${f.id} has no revision or tag ${JSON.stringify(req.version)}`);
      const use = totalUse(fragmentUsage(db).get(f.id));
      return {
        fragment: fragmentMessage(f, atRevision(f, n), use),
        fragmentUsage: usageMessage(f.id, use),
        revisions: store.listRevisions(db, f.id).map((r) => ({ revision: String(r.revision), createdAt: timestamp(r.createdAt) })),
        tags: store.listTags(db, f.id).map((t) => ({ tag: t.tag, revision: String(t.revision) })),
      };
    },

    listFragments(req, ctx) {
      const p = principalOf(ctx);
      required(req.organizationId, 'organization_id');
      if (!accounts.getOrganization(db, req.organizationId) || !knowsOrganization(p, req.organizationId)) {
        throw permissionDenied(`no permission on organization ${req.organizationId}`);
      }
      const wanted = new Set<number>(req.fragmentVisibility);
      const listed = [
        ...store.listFragments(db, req.organizationId),
        ...(req.showPublic
          ? store
              .listFragments(db, undefined)
              .filter((f) => f.organizationId !== req.organizationId && f.visibility === FragmentVisibility.PUBLIC)
          : []),
      ].filter((f) => wanted.size === 0 || wanted.has(f.visibility));
      const usage = fragmentUsage(db);
      return {
        fragments: listed.map((f) => fragmentMessage(f, atRevision(f, f.latestRevision), totalUse(usage.get(f.id)))),
        fragmentUsages: listed.map((f) => usageMessage(f.id, totalUse(usage.get(f.id)))),
      };
    },

    deleteFragment(req, ctx) {
      db.transaction(() => {
        const f = fragmentFor(db, principalOf(ctx), req.id, 'write');
        const machinesUsing = [...totalUse(fragmentUsage(db).get(f.id)).robots];
        const fragmentsUsing = store
          .listFragments(db, undefined)
          .filter((other) => other.id !== f.id && importsDirectly(atRevision(other, other.latestRevision).config, f.id));
        if (machinesUsing.length > 0 || fragmentsUsing.length > 0) {
          const names = [
            ...machinesUsing.slice(0, 10).map((id) => `machine ${machines.getRobot(db, id)?.name ?? id} (${id})`),
            ...fragmentsUsing.slice(0, 10).map((o) => `fragment ${o.name} (${o.id})`),
          ];
          throw failedPrecondition(`fragment ${f.id} is in use by ${names.join(', ')}; remove it from their configs first`);
        }
        store.deleteFragment(db, f.id);
      }).immediate();
      return {};
    },

    getFragmentHistory(req, ctx) {
      const f = fragmentFor(db, principalOf(ctx), req.id, 'read');
      let before: number | undefined;
      if (req.pageToken !== undefined && req.pageToken !== '') {
        if (!REVISION.test(req.pageToken))
          throw invalidArgument(`page_token: ${JSON.stringify(req.pageToken)} is not a token this call gave`);
        before = Number(req.pageToken);
      }
      const limit = req.pageLimit === undefined || req.pageLimit <= 0n ? undefined : Number(req.pageLimit);
      const rows = store.listRevisions(db, f.id, before, limit === undefined ? undefined : limit + 1);
      const shown = limit === undefined ? rows : rows.slice(0, limit);
      const last = shown[shown.length - 1];
      return {
        history: shown.map((r) => {
          const old = r.revision > 1 ? store.getRevision(db, f.id, r.revision - 1) : undefined;
          return {
            fragment: f.id,
            editedOn: timestamp(r.createdAt),
            ...(old ? { old: { ...fragmentMessage(f, old, EMPTY_USE), name: old.name, lastUpdated: timestamp(old.createdAt) } } : {}),
            editedBy: {
              type: AUTHENTICATION_TYPE_API_KEY,
              value: r.editedBy,
              isDeactivated: accounts.getApiKey(db, r.editedBy) === undefined,
            },
            revision: String(r.revision),
            config: Struct.fromJson(JSON.parse(r.config) as JsonValue),
          };
        }),
        nextPageToken: rows.length > shown.length && last ? String(last.revision) : '',
      };
    },

    getFragmentUsage(req, ctx) {
      const f = fragmentFor(db, principalOf(ctx), req.fragmentId, 'read');
      const byVersion = fragmentUsage(db).get(f.id) ?? new Map<string, VersionUse>();
      return { versionUsages: [...byVersion].map(([version, use]) => usageMessage(f.id, use, version === '' ? undefined : version)) };
    },

    setFragmentTag(req, ctx) {
      const problem = tagProblem(req.tag);
      if (problem) throw invalidArgument(problem);
      if (!REVISION.test(req.revision))
        throw invalidArgument(`revision: ${JSON.stringify(req.revision)} is not a revision; revisions are numbers ("1", "2", ...)`);
      const tags = db
        .transaction(() => {
          const f = fragmentFor(db, principalOf(ctx), req.fragmentId, 'write');
          const n = Number(req.revision);
          if (n > f.latestRevision) throw notFound(`fragment ${f.id} has no revision ${req.revision} (its latest is ${f.latestRevision})`);
          store.setTag(db, f, req.tag, n);
          redeployFragmentUsers();
          return store.listTags(db, f.id);
        })
        .immediate();
      return { tags: tags.map((t) => ({ tag: t.tag, revision: String(t.revision) })) };
    },

    deleteFragmentTag(req, ctx) {
      const tags = db
        .transaction(() => {
          const f = fragmentFor(db, principalOf(ctx), req.fragmentId, 'write');
          if (!store.deleteTag(db, f, required(req.tag, 'tag'))) throw notFound(`fragment ${f.id} has no tag ${JSON.stringify(req.tag)}`);
          redeployFragmentUsers();
          return store.listTags(db, f.id);
        })
        .immediate();
      return { tags: tags.map((t) => ({ tag: t.tag, revision: String(t.revision) })) };
    },

    listNestedFragments(req, ctx) {
      const p = principalOf(ctx);
      const root = req.fragmentId ? fragmentFor(db, p, req.fragmentId, 'read') : undefined;
      const first = req.additionalFragments[0];
      const owner = root ?? (first ? fragmentFor(db, p, first.fragmentId, 'read') : undefined);
      if (!owner) throw invalidArgument('fragment_id or additional_fragments is required');
      const imports = [
        ...(root ? [{ id: root.id }] : []),
        ...req.additionalFragments.map((a) => ({
          id: required(a.fragmentId, 'additional_fragments.fragment_id'),
          ...(a.version ? { version: a.version } : {}),
        })),
      ];
      const resolution = resolvePart(db, {
        id: `fragment ${owner.id}`,
        organizationId: owner.organizationId,
        config: JSON.stringify({ fragments: imports }),
      });
      return resolutionMessages(resolution, owner.organizationId, (i) => i.depth > 1 || i.id !== root?.id);
    },

    listMachineFragments(req, ctx) {
      const robot = robotFor(db, principalOf(ctx), req.machineId, 'read');
      const additional = [
        ...req.additionalFragmentIds.map((id) => ({ id })),
        ...req.additionalFragments.map((a) => ({ id: a.fragmentId, ...(a.version ? { version: a.version } : {}) })),
      ];
      const lookup = storeLookup(db, robot.organizationId);
      const parts = machines.listParts(db, robot.id);
      const merged: MachineResolution = { config: {}, imports: [], errors: [] };
      parts.forEach((part, i) => {
        let config = part.config;
        if (i === 0 && additional.length > 0) {
          const own = JSON.parse(config) as Record<string, unknown>;
          config = JSON.stringify({ ...own, fragments: [...(Array.isArray(own['fragments']) ? own['fragments'] : []), ...additional] });
        }
        const r = resolvePart(db, { id: part.id, organizationId: robot.organizationId, config }, lookup);
        merged.imports.push(...r.imports);
      });
      return resolutionMessages(merged, robot.organizationId, () => true);
    },
  };
}

/** Whether a fragment config's own `fragments` list names `id`. */
function importsDirectly(config: string, id: string): boolean {
  const imports = (JSON.parse(config) as { fragments?: unknown }).fragments;
  if (!Array.isArray(imports)) return false;
  return imports.some((i: unknown) => i === id || (typeof i === 'object' && i !== null && (i as { id?: unknown }).id === id));
}
