import type { Applied, Desired, Judgement, Observation, PlanProblem, ResourceKind } from '../kind';
import { unlessNotFound } from './not-found';

/** A dataset of an organization, which training jobs train on. */
export const datasetKind: ResourceKind = {
  type: 'fleetform_dataset',
  replaceOrder: 'delete-first',

  async desire(ctx, attributes): Promise<Desired> {
    const problems: PlanProblem[] = [];
    const name = typeof attributes.name === 'string' ? attributes.name : '';
    if (!name) problems.push({ path: 'name', message: 'a dataset needs a name' });
    const organizationId = typeof attributes.organization_id === 'string' && attributes.organization_id ? attributes.organization_id : ctx.organizationId;
    return { view: { name, organization_id: organizationId }, sensitivePaths: [], private: {}, notes: [], problems };
  },

  async observe(ctx, entry): Promise<Observation | undefined> {
    const id = entry.ids.id;
    const dataset = id ? await unlessNotFound(() => ctx.client.datasetClient.getDataset(id)) : undefined;
    if (!dataset) return undefined;
    return { view: { name: dataset.name, organization_id: dataset.organizationId }, version: `${dataset.name}`, facts: {} };
  },

  judge(current, desired): Judgement {
    const reasons = ['name', 'organization_id'].filter((k) => current[k] !== desired[k]);
    return {
      replaceReasons: reasons,
      problems: [],
      notes: reasons.length > 0 ? [{ level: 'warning', message: 'replacing a dataset deletes the existing one and what it holds' }] : [],
    };
  },

  async create(ctx, desired): Promise<Applied> {
    const id = await ctx.client.datasetClient.createDataset(String(desired.name), String(desired.organization_id));
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
    const found = (await ctx.client.datasetClient.listDatasets(String(key.organization_id))).find((d) => d.name === key.name && !managedIds.has(d.id));
    return found ? { ids: { id: found.id }, outputs: { id: found.id } } : undefined;
  },

  async importById(ctx, id): Promise<Applied | undefined> {
    const dataset = await ctx.client.datasetClient.getDataset(id);
    return dataset ? { ids: { id }, outputs: { id } } : undefined;
  },
};
