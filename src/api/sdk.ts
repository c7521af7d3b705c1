/**
 * The official SDK ships ESM for Node (its `require` entry is a UMD build that Node 20
 * loads as an empty ES module), so it is loaded once, asynchronously, from here.
 */
export type Sdk = typeof import('@viamrobotics/sdk');
let cached: Promise<Sdk> | undefined;
export function loadSdk(): Promise<Sdk> {
  cached ??= import('@viamrobotics/sdk');
  return cached;
}
export type MlTrainingApi = Sdk['mlTrainingApi'];
export type AppApi = Sdk['appApi'];
export type SubmitReq = InstanceType<MlTrainingApi['SubmitTrainingJobRequest']>;
