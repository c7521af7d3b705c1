import { datasetResource } from '../../domain/resource-attributes';
import type { Applied, DesiredValue, Judgement, Observation, ResourceKind } from '../kind';
import { defineKind, type ViewOf } from '../kind-declaration';
import { unlessNotFound } from './not-found';

export const datasetDeclaration = defineKind(datasetResource);

type DatasetView = ViewOf<typeof datasetDeclaration>;

/** A dataset of an organization, which training jobs train on. */
export const datasetKind: ResourceKind<typeof datasetDeclaration> = {
  type: datasetDeclaration.type,
  declaration: datasetDeclaration,
  replaceOrder: 'delete-first',

  async desire(ctx, attributes): Promise<DesiredValue<DatasetView>> {
    return {
      view: { name: attributes.name, organization_id: attributes.organization_id || ctx.organizationId },
      private: {},
      notes: [],
      problems: [],
    };
  },

  async observe(ctx, entry): Promise<Observation<DatasetView> | undefined> {
    const id = entry.ids.id;
    const dataset = id ? await unlessNotFound(() => ctx.client.datasetClient.getDataset(id)) : undefined;
    if (!dataset) return undefined;
    return { view: { name: dataset.name, organization_id: dataset.organizationId }, version: `${dataset.name}`, facts: {} };
  },

  judge({ replaceReasons }): Judgement {
    return {
      problems: [],
      notes:
        replaceReasons.length > 0 ? [{ level: 'warning', message: 'replacing a dataset deletes the existing one and what it holds' }] : [],
    };
  },

  async create(ctx, desired): Promise<Applied> {
    const id = await ctx.client.datasetClient.createDataset(desired.name, desired.organization_id);
    return { ids: { id }, outputs: { id } };
  },

  async update(_ctx, entry): Promise<Applied> {
    return { ids: entry.ids, outputs: entry.outputs };
  },

  async delete(ctx, entry) {
    const id = entry.ids.id;
    if (id) await unlessNotFound(() => ctx.client.datasetClient.deleteDataset(id));
    return 'deleted';
  },

  retainOnDelete: () => false,

  identity(view) {
    const name = typeof view.name === 'string' ? view.name : '';
    const organizationId = typeof view.organization_id === 'string' ? view.organization_id : '';
    return name ? { key: { name, organization_id: organizationId }, label: `dataset ${name}` } : undefined;
  },

  async findCreated(ctx, key, managedIds): Promise<Applied | undefined> {
    const found = (await ctx.client.datasetClient.listDatasets(String(key.organization_id))).find(
      (d) => d.name === key.name && !managedIds.has(d.id),
    );
    return found ? { ids: { id: found.id }, outputs: { id: found.id } } : undefined;
  },

  async importById(ctx, id): Promise<Applied | undefined> {
    const dataset = await ctx.client.datasetClient.getDataset(id);
    return dataset ? { ids: { id }, outputs: { id } } : undefined;
  },
};
