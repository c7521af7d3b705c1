/** `viam.app.dataset.v1.DatasetService`: datasets belong to an organization. */
import type { ServiceImpl } from '@connectrpc/connect';
import { DatasetType } from '../../api/own-messages';
import type { DatasetServiceType } from '../../api/services';
import { roleOn } from '../auth/principal';
import * as datasets from '../store/datasets';
import { datasetFor, organizationFor } from './access';
import { principalOf, timestamp, type Backend } from './context';
import { alreadyExists, invalidArgument, required } from './errors';

function datasetMessage(d: datasets.DatasetRecord) {
  return { id: d.id, name: d.name, organizationId: d.organizationId, timeCreated: timestamp(d.createdOn), type: d.type };
}

const DATASET_TYPES: readonly number[] = [DatasetType.BINARY_DATA, DatasetType.SEQUENCE_DATA];

/** A requested dataset type: a number DatasetType does not name is refused. */
function knownType(type: number): number {
  if (!DATASET_TYPES.includes(type)) throw invalidArgument(`type: unknown dataset type ${type}`);
  return type;
}

export function datasetService(backend: Backend): Partial<ServiceImpl<DatasetServiceType>> {
  const { db } = backend;
  return {
    createDataset(req, ctx) {
      const org = organizationFor(db, principalOf(ctx), req.organizationId, 'write');
      const name = required(req.name, 'name').trim();
      if (datasets.datasetNameTaken(db, org.id, name))
        throw alreadyExists(`a dataset named ${name} already exists in organization ${org.id}`);
      const type = knownType(req.type ?? DatasetType.BINARY_DATA);
      return { id: datasets.insertDataset(db, org.id, name, type, backend.now()).id };
    },

    deleteDataset(req, ctx) {
      const ds = datasetFor(db, principalOf(ctx), req.id, 'write');
      datasets.deleteDataset(db, ds.id);
      return {};
    },

    listDatasetsByOrganizationID(req, ctx) {
      const org = organizationFor(db, principalOf(ctx), req.organizationId, 'read');
      const type = req.type === undefined ? undefined : knownType(req.type);
      return { datasets: datasets.listDatasets(db, org.id, type).map(datasetMessage) };
    },

    /** Unknown ids and datasets the caller may not read are left out. */
    listDatasetsByIDs(req, ctx) {
      const p = principalOf(ctx);
      const ids: readonly string[] = req.ids;
      const found = ids
        .map((id) => datasets.getDataset(db, id))
        .filter((d): d is datasets.DatasetRecord => d !== undefined && roleOn(p, { organizationId: d.organizationId }) !== undefined);
      return { datasets: found.map(datasetMessage) };
    },
  };
}
