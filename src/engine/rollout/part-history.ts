import type { ServiceClient } from '../../api/client';
import { loadServices } from '../../api/services';
import { FleetformError } from '../../domain/errors';

function iso(ts: { seconds: bigint; nanos: number } | undefined): string {
  return ts ? new Date(Number(ts.seconds) * 1000 + Math.floor(ts.nanos / 1e6)).toISOString() : '';
}

/** A config as a part history entry keeps it: the object, and the JSON text it was stored as (when stored from text). */
export interface HistoryConfig {
  readonly config: Record<string, unknown>;
  readonly configJson?: string;
}

/** The config a part had at `revision` (the time of the write that made it), from the part's history. */
export async function configAtRevision(client: ServiceClient, partId: string, revision: string): Promise<HistoryConfig> {
  const app = client.clientFor((await loadServices()).app);
  let pageToken: string | undefined;
  for (;;) {
    const page = await app.getRobotPartHistory({ id: partId, ...(pageToken ? { pageToken } : {}) });
    for (const entry of page.history) {
      const old = entry.old;
      if (!old || iso(old.lastUpdated) !== revision) continue;
      if (old.robotConfigJson !== undefined && old.robotConfigJson !== '')
        return { config: JSON.parse(old.robotConfigJson) as Record<string, unknown>, configJson: old.robotConfigJson };
      return { config: (old.robotConfig?.toJson() ?? {}) as Record<string, unknown> };
    }
    if (!page.nextPageToken) break;
    pageToken = page.nextPageToken;
  }
  throw new FleetformError(`the history of part ${partId} has no config at revision ${revision}`, {
    hint: 'write the machine back by hand from `fleetform state show`, or apply the configuration you want',
  });
}
