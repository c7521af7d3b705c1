/** Where a machine part is reached: its DNS names under the emulator's domain. */
import type { Db } from '../db/database';
import * as machines from '../store/machines';

export const DNS_SUFFIX = 'emulator.fleetform.local';

export function dnsLabel(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9-]+/g, '-');
}

/** `<part label>.<location id>`: the part's DNS name, under which its FQDNs are. */
export function partDnsName(part: Pick<machines.PartRecord, 'name' | 'locationId'>): string {
  return `${dnsLabel(part.name)}.${part.locationId}`;
}

export function partFqdn(part: Pick<machines.PartRecord, 'name' | 'locationId'>): string {
  return `${partDnsName(part)}.${DNS_SUFFIX}`;
}

/** The part a host names: its FQDN (local or not, with or without a port) or its id. */
export function partByHost(db: Db, host: string): machines.PartRecord | undefined {
  const name = host.trim().toLowerCase().replace(/:\d+$/, '');
  const byId = machines.getPart(db, host.trim());
  if (byId) return byId;
  const m = /^([a-z0-9-]+)\.([^.]+)\.(?:local\.)?emulator\.fleetform\.local$/.exec(name);
  if (!m) return undefined;
  const [, label, locationId] = m as unknown as [string, string, string];
  return machines.partInLocationByLabel(db, locationId, label, dnsLabel);
}
