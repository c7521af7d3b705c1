/**
 * Datasets (viam.app.dataset.v1.DatasetService). Lists and gets are retried on transient
 * errors; creates and deletes run once.
 */
import { datasetTypeNumber, type DatasetType } from '../../domain/dataset-type';
import type { DatasetServiceType } from '../services';
import type { Invoker } from './call';
import { datasetOf } from './convert';
import { unlessNotFound } from './errors';
import type { Dataset } from './types';

/** Datasets of an organization. */
export interface DatasetClient {
  /** Creates a dataset (of the service's default type, binary, when `type` is left out); resolves to its id. */
  createDataset(name: string, organizationId: string, type?: DatasetType): Promise<string>;
  /** The organization's datasets: of one type when `type` is given, else every one. */
  listDatasets(organizationId: string, type?: DatasetType): Promise<Dataset[]>;
  /** The dataset, or undefined when no dataset has this id. */
  getDataset(id: string): Promise<Dataset | undefined>;
  deleteDataset(id: string): Promise<void>;
}

/** The dataset client over `call`. */
export function createDatasetClient(call: Invoker<DatasetServiceType>): DatasetClient {
  return {
    async createDataset(name, organizationId, type) {
      const typed = type === undefined ? {} : { type: datasetTypeNumber(type) };
      const res = await call('createDataset', false, (c, o) => c.createDataset({ name, organizationId, ...typed }, o));
      return res.id;
    },

    async listDatasets(organizationId, type) {
      const typed = type === undefined ? {} : { type: datasetTypeNumber(type) };
      const res = await call('listDatasetsByOrganizationID', true, (c, o) =>
        c.listDatasetsByOrganizationID({ organizationId, ...typed }, o),
      );
      return res.datasets.map(datasetOf);
    },

    async getDataset(id) {
      const res = await unlessNotFound(() => call('listDatasetsByIDs', true, (c, o) => c.listDatasetsByIDs({ ids: [id] }, o)));
      const found = res?.datasets.find((d) => d.id === id);
      return found === undefined ? undefined : datasetOf(found);
    },

    async deleteDataset(id) {
      await call('deleteDataset', false, (c, o) => c.deleteDataset({ id }, o));
    },
  };
}
