/**
 * The engine's face for the Terraform provider: the kinds' planning core (desire, plan a
 * resource, take back a kept object), the provider schema and the secret paths it masks.
 */
export { attributeProblems, desireResource } from './desire';
export {
  attributesOfView,
  IMPORT_ID_HINT,
  type Applied,
  type Desired,
  type KindContext,
  type KindRegistry,
  type Observation,
  type PlanNote,
  type PlanProblem,
  type ResourceKind,
} from './kind';
export type { AttributeFacts, KindDeclaration, TerraformType } from './kind-declaration';
export { withDigestsRead } from './path-values';
export { readPlanValuesText } from './plan/plan-text';
export { planResourceChange } from './plan/resource-core';
export { findKeptObject, TAKEN_BACK_PRIVATE, takenBackEntry } from './plan/take-back';
export { kindContext, resolveTarget, type Target } from './target';
export { digestName, terraformResourceSchema, writeOnlyAttributes } from './terraform-schema';
export { referencedViewPaths } from './secret-references';
export { maskPaths, observedSecretPaths, viewSecretPaths } from './mask';
export { stableStringify } from './json';
export type { StateEntry } from './state/schema';
