import { ServiceError } from '../../api/client/errors';
import { importedFragmentIds } from '../../domain/fragments';
import type { DefaultFragmentImport } from '../../domain/organization-defaults';
import type { JsonObject } from '../json';
import type { KindContext, PlanNote } from '../kind';

/** The organization's default fragments, read once per run; none when the key may not read the organization. */
async function organizationDefaults(ctx: KindContext): Promise<readonly DefaultFragmentImport[]> {
  if (!ctx.organizationId) return [];
  return ctx.memo(`organization-defaults:${ctx.organizationId}`, async () => {
    try {
      return (await ctx.client.appClient.getOrganization(ctx.organizationId)).defaultFragments;
    } catch (err) {
      if (err instanceof ServiceError && (err.code === 'PERMISSION_DENIED' || err.code === 'NOT_FOUND')) return [];
      throw err;
    }
  });
}

/**
 * A new machine starts with the organization's default fragments imported, and its first
 * write sets the config code declares: the note names the defaults that write leaves out.
 */
export async function replacedDefaultsNote(ctx: KindContext, config: JsonObject): Promise<PlanNote[]> {
  const defaults = await organizationDefaults(ctx);
  if (defaults.length === 0) return [];
  const imported = importedFragmentIds(config);
  const left = defaults.filter((d) => !imported.has(d.id)).map((d) => d.id);
  if (left.length === 0) return [];
  return [
    {
      level: 'info',
      path: 'config.fragments',
      message: `the organization's default fragment(s) ${left.join(', ')}, which a new machine starts importing, are not in this config: the machine's first write replaces them with the config declared here (import them with useFragment to keep them)`,
    },
  ];
}
