/**
 * The names of the API keys of the organizations the dashboard's connection sees, by id, for
 * naming who edited a part. Only ids and names are kept: a key's value, when the service
 * answers one, is dropped at once. A failure (a key without the right to list keys) names none.
 */
import type { ServiceClient } from '../api/client';
import { loadServices } from '../api/services';

export async function readKeyNames(client: ServiceClient): Promise<Map<string, string>> {
  const app = client.clientFor((await loadServices()).app);
  const names = new Map<string, string>();
  const { organizations } = await app.listOrganizations({});
  for (const org of organizations) {
    const listed = await app.listKeys({ orgId: org.id }).catch(() => undefined);
    for (const k of listed?.apiKeys ?? []) if (k.apiKey?.id && k.apiKey.name) names.set(k.apiKey.id, k.apiKey.name);
  }
  return names;
}

/** readKeyNames, read again when older than `maxAgeMs`; an empty map when it cannot be read. */
export function keyNamesReader(client: ServiceClient, maxAgeMs = 300_000): () => Promise<Map<string, string>> {
  let last: { at: number; names: Promise<Map<string, string>> } | undefined;
  return () => {
    if (!last || Date.now() - last.at > maxAgeMs)
      last = { at: Date.now(), names: readKeyNames(client).catch(() => new Map<string, string>()) };
    return last.names;
  };
}
