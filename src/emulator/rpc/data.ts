/**
 * `viam.app.data.v1.DataService` ExportTabularData: the points a simulated part captured for
 * one source (resource name, its API as `resource_subtype`, method), oldest first, within
 * the interval when one is given. Reading needs a role on the part's machine.
 */
import type { ServiceImpl } from '@connectrpc/connect';
import { Struct, type JsonObject } from '@bufbuild/protobuf';
import type { DataServiceType } from '../../api/data-service';
import { capturedPoints } from '../store/captured';
import { partFor } from './access';
import { principalOf, timestamp, type Backend } from './context';
import { invalidArgument, required } from './errors';

type Timestamp = { readonly seconds: bigint; readonly nanos: number } | undefined;

function millis(t: Timestamp): number | undefined {
  return t === undefined ? undefined : Number(t.seconds) * 1000 + Math.floor(t.nanos / 1e6);
}

export function dataService(backend: Backend): Partial<ServiceImpl<DataServiceType>> {
  const { db } = backend;
  return {
    async *exportTabularData(req, ctx) {
      const part = partFor(db, principalOf(ctx), required(req.partId, 'part_id'), 'read');
      const source = {
        resourceName: required(req.resourceName, 'resource_name'),
        resourceSubtype: required(req.resourceSubtype, 'resource_subtype'),
        methodName: required(req.methodName, 'method_name'),
      };
      const start = millis(req.interval?.start) ?? 0;
      const end = millis(req.interval?.end) ?? Number.MAX_SAFE_INTEGER;
      if (end < start) throw invalidArgument('interval: end is before start');
      for (const row of capturedPoints(db, part.id, source, start, end)) {
        yield {
          partId: part.id,
          resourceName: row.resource_name,
          resourceSubtype: row.resource_subtype,
          methodName: row.method_name,
          timeCaptured: timestamp(row.time),
          organizationId: part.organizationId,
          locationId: part.locationId,
          robotName: part.robotName,
          robotId: part.robotId,
          partName: part.name,
          methodParameters: new Struct(),
          tags: [],
          payload: Struct.fromJson(JSON.parse(row.payload) as JsonObject),
        };
      }
    },
  };
}
