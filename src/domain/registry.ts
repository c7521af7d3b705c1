/** One released version of a registry module and the models it provides. */
export interface ModuleVersion {
  version: string;
  models: { api: string; model: string }[];
  /** Set when the version is deprecated: why (may be empty). A machine pinned to it still runs it. */
  deprecated?: string;
  /** The oldest viam-server the version runs on; absent for any. */
  minViamServerVersion?: string;
}

/** The API a model is served under in a module version, or undefined when the version does not provide it. */
export function apiOfModel(version: ModuleVersion, model: string): string | undefined {
  return version.models.find((m) => m.model === model)?.api;
}
