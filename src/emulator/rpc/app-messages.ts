/** The AppService's messages of machines, parts, their config history and locations, as stored records answer them. */
import { Struct as MessageStruct, type JsonValue } from '@bufbuild/protobuf';
import { encodeStruct, type StructObject } from '../../api/struct-codec';
import { DNS_SUFFIX, partDnsName } from '../logic/part-address';
import { sortedKeys } from '../logic/stored-config';
import * as accounts from '../store/accounts';
import { getCheckin } from '../store/checkins';
import * as machines from '../store/machines';
import type { PartHistoryRecord } from '../store/part-history';
import { timestamp, type Backend } from './context';
import { onlineFields, robotOnlineFields } from './live-machines';

/** `viam.app.v1.AuthenticationType.API_KEY`: every edit is made with an API key. */
const AUTHENTICATION_TYPE_API_KEY = 2;

function configObject(part: machines.PartRecord): { [key: string]: JsonValue } {
  return JSON.parse(part.config) as { [key: string]: JsonValue };
}

export function robotMessage(backend: Backend, r: machines.RobotRecord) {
  return { id: r.id, name: r.name, location: r.locationId, createdOn: timestamp(r.createdOn), ...robotOnlineFields(backend, r.id) };
}

export function partFields(backend: Backend, part: machines.PartRecord) {
  const dns = partDnsName(part);
  return {
    id: part.id,
    name: part.name,
    dnsName: dns,
    secret: part.secret,
    robot: part.robotId,
    locationId: part.locationId,
    mainPart: part.mainPart,
    fqdn: `${dns}.${DNS_SUFFIX}`,
    localFqdn: `${dns}.local.${DNS_SUFFIX}`,
    createdOn: timestamp(part.createdOn),
    lastUpdated: timestamp(part.lastUpdated),
    ...onlineFields(backend, getCheckin(backend.db, part.id)?.lastAccess),
  };
}

/** The config as the encoded Struct stored with it (keys sorted), or encoded now for parts stored without one. */
export function encodedConfig(part: machines.PartRecord): Uint8Array<ArrayBuffer> {
  return part.configStruct ?? new Uint8Array(encodeStruct(sortedKeys(configObject(part)) as StructObject));
}

/** A history entry: the part as it was before the edit (its name, config and last update then). */
export function historyEntry(backend: Backend, part: machines.PartRecord, h: PartHistoryRecord) {
  // The history messages are fleetform's own (with paging), over @bufbuild/protobuf's Struct.
  const robotConfig = MessageStruct.fromBinary(
    h.oldConfigStruct ?? encodeStruct(sortedKeys(JSON.parse(h.oldConfig) as StructObject) as StructObject),
  );
  const asWas = { ...partFields(backend, { ...part, name: h.oldName, lastUpdated: h.oldLastUpdated }), robotConfig };
  return {
    part: part.id,
    robot: h.robotId,
    when: timestamp(h.editedOn),
    old: h.oldConfigAsSent ? { ...asWas, robotConfigJson: h.oldConfig } : asWas,
    editedBy: {
      type: AUTHENTICATION_TYPE_API_KEY,
      value: h.editedBy,
      isDeactivated: accounts.getApiKey(backend.db, h.editedBy) === undefined,
    },
  };
}

export function locationMessage(backend: Backend, l: accounts.LocationRecord) {
  return {
    id: l.id,
    name: l.name,
    parentLocationId: l.parentLocationId ?? '',
    organizations: [{ organizationId: l.organizationId, primary: true }],
    createdOn: timestamp(l.createdOn),
    robotCount: machines.listRobots(backend.db, l.id).length,
  };
}
