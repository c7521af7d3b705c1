import { ServiceError } from '../../api/client/errors';
import { FleetformError } from '../../domain/errors';
import { fragmentTagResource } from '../../domain/resource-attributes';
import { isUnknown, unknownValue } from '../json';
import type { Applied, DesiredValue, KindContext, Observation, PlanProblem, ResourceKind } from '../kind';
import { defineKind, type ViewOf } from '../kind-declaration';
import { unlessNotFound } from './not-found';

export const fragmentTagDeclaration = defineKind(fragmentTagResource);

type FragmentTagView = ViewOf<typeof fragmentTagDeclaration>;

/** A tag's id: `<fragment_id>/<tag>` (a fragment id holds no `/`). */
export function fragmentTagId(fragmentId: string, tag: string): string {
  return `${fragmentId}/${tag}`;
}

function parseTagId(id: string): { fragmentId: string; tag: string } | undefined {
  const at = id.lastIndexOf('/');
  return at > 0 && at < id.length - 1 ? { fragmentId: id.slice(0, at), tag: id.slice(at + 1) } : undefined;
}

/** A fragment at its latest revision, read once per run. */
function fragmentNow(ctx: KindContext, fragmentId: string) {
  return ctx.memo(`fragment-latest:${fragmentId}`, () => unlessNotFound(() => ctx.client.appClient.getFragment(fragmentId)));
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

function applied(fragmentId: string, tag: string): Applied {
  const id = fragmentTagId(fragmentId, tag);
  return { ids: { id }, outputs: { id } };
}

async function setTag(ctx: KindContext, desired: FragmentTagView): Promise<void> {
  try {
    await ctx.client.appClient.setFragmentTag(desired.fragment_id, desired.tag, desired.revision);
  } catch (err) {
    if (!(err instanceof ServiceError) || (err.code !== 'NOT_FOUND' && err.code !== 'INVALID_ARGUMENT')) throw err;
    throw new FleetformError(
      `cannot tag revision ${desired.revision} of fragment ${desired.fragment_id} as ${desired.tag}: ${err.detail}`,
      {
        hint: 'name an existing revision of the fragment (leave revision out to tag the latest)',
      },
    );
  }
}

/** The revision a tag will name when the fragment is saved by this apply: in a view typed as text, unknown until then. */
function textNotKnownYet(): string {
  return unknownValue as unknown as string;
}

/** A tag of a fragment, naming one of its revisions. */
export const fragmentTagKind: ResourceKind<typeof fragmentTagDeclaration> = {
  type: fragmentTagDeclaration.type,
  declaration: fragmentTagDeclaration,
  // One tag of a name per fragment.
  replaceOrder: 'delete-first',

  async desire(ctx, attributes): Promise<DesiredValue<FragmentTagView>> {
    const problems: PlanProblem[] = [];
    const fragmentId = attributes.fragment_id;
    let revision = attributes.revision;
    if (!isUnknown(fragmentId) && !isUnknown(revision)) {
      const fragment = await fragmentNow(ctx, fragmentId);
      if (!fragment)
        problems.push({
          path: 'fragment_id',
          message: `the organization has no fragment ${fragmentId}`,
          hint: 'give the id of an existing fragment, or a Fragment of the stack',
        });
      else if (revision === undefined) revision = fragment.fragment.revision;
      else if (!fragment.revisions.some((r) => r.revision === revision)) {
        problems.push({
          path: 'revision',
          message: `fragment ${fragmentId} has no revision ${revision}`,
          hint: `its revisions: ${fragment.revisions.map((r) => r.revision).join(', ')}; leave revision out to tag the latest`,
        });
      }
    }
    return {
      view: { fragment_id: fragmentId, tag: attributes.tag, revision: revision ?? textNotKnownYet() },
      private: {},
      notes: [],
      problems,
    };
  },

  async observe(ctx, entry): Promise<Observation<FragmentTagView> | undefined> {
    const parsed = parseTagId(entry.ids.id ?? '');
    if (!parsed) return undefined;
    const fragment = await unlessNotFound(() => ctx.client.appClient.getFragment(parsed.fragmentId));
    const found = fragment?.tags.find((t) => t.tag === parsed.tag);
    if (!found) return undefined;
    return { view: { fragment_id: parsed.fragmentId, tag: found.tag, revision: found.revision }, version: found.revision, facts: {} };
  },

  async create(ctx, desired, checkpoint): Promise<Applied> {
    await setTag(ctx, desired);
    const result = applied(desired.fragment_id, desired.tag);
    await checkpoint(result);
    return result;
  },

  async update(ctx, _entry, desired): Promise<Applied> {
    // Moving a tag is idempotent and takes no guard: the revision it names is the whole object.
    await setTag(ctx, desired);
    return applied(desired.fragment_id, desired.tag);
  },

  async delete(ctx, entry) {
    const parsed = parseTagId(entry.ids.id ?? '');
    if (parsed) await unlessNotFound(() => ctx.client.appClient.deleteFragmentTag(parsed.fragmentId, parsed.tag));
    return 'deleted';
  },

  retainOnDelete: () => false,

  identity(view) {
    const fragmentId = text(view.fragment_id);
    const tag = text(view.tag);
    return fragmentId && tag ? { key: { fragment_id: fragmentId, tag }, label: `tag ${tag} of fragment ${fragmentId}` } : undefined;
  },

  async findCreated(ctx, key, managedIds): Promise<Applied | undefined> {
    const fragmentId = text(key.fragment_id);
    const tag = text(key.tag);
    if (!fragmentId || isUnknown(fragmentId) || managedIds.has(fragmentTagId(fragmentId, tag))) return undefined;
    const fragment = await unlessNotFound(() => ctx.client.appClient.getFragment(fragmentId));
    return fragment?.tags.some((t) => t.tag === tag) ? applied(fragmentId, tag) : undefined;
  },

  async importById(ctx, id): Promise<Applied | undefined> {
    const parsed = parseTagId(id);
    if (!parsed) {
      throw new FleetformError(`${id} is not a fragment tag id`, {
        hint: 'import a fragment tag by `<fragment_id>/<tag>`, e.g. 6f1c.../stable',
      });
    }
    const fragment = await unlessNotFound(() => ctx.client.appClient.getFragment(parsed.fragmentId));
    return fragment?.tags.some((t) => t.tag === parsed.tag) ? applied(parsed.fragmentId, parsed.tag) : undefined;
  },
};
