/**
 * The engine's face for running it: plan, apply, state, rollouts, windows, the renderers and
 * what they share. Other layers import the engine through this file and the entries beside it
 * (`readings.ts`, `provider-core.ts`, `project-code.ts`, `pg-state.ts`), never its inner files.
 */
export { Engine } from './engine';
export { defaultKinds } from './kinds';
export type { KindContext, KindRegistry } from './kind';
export { readStacks } from './desired/read-stacks';
export { unescapedAttributes } from './desired/references';
export type { DesiredStack, StackBackend } from './desired/stack';
export { hasChanges, summarize, type Plan, type PlanSummary, type ResourceChange } from './plan-model';
export { planValuesText, readPlanValuesText } from './plan/plan-text';
export type { ApplyReporter } from './apply/executor';
export { rolloutJournalKeys } from './apply/schedule';
export { formatOutputs } from './outputs';
export { mapLimited } from './map-limited';
export { receiveAppSecrets } from './secret-references';
export { redact, showValue } from './shown-value';
export { isMasked, maskPaths, viewSecretPaths } from './mask';
export { stableStringify } from './json';
export type { StateBackend } from './state/backend';
export { StateLockedError } from './state/holder-process';
export { LocalStateBackend } from './state/local-backend';
export { fileJournalStore, type RolloutJournal, type RolloutJournalStore } from './state/rollout-journal';
export { isUnfinished, releaseHint } from './state/rollout-journal-pacing';
export type { LockInfo, State, StateEntry, StateOutput } from './state/schema';
export { abortable, abortRollout } from './rollout/abort';
export { eventLine, type RolloutEvent, type RolloutEvents, type RolloutOutcome } from './rollout/events';
export { holdLines, lateJoinerMark, wavePacingText } from './rollout/journal-text';
export { releaseIfPaused, releaseRollout } from './rollout/release';
export { colorWanted } from './render/colors';
export { renderPlanJson } from './render/json';
export { renderPlanMarkdown } from './render/markdown';
export { renderPlanText, summaryLine } from './render/text';
export { heldText, locationPass, LocationWindows, waveHold, type LocationHeld } from './windows/location-windows';
export { checkedAgainstWindows, heldCount, refuseHeld, windowsBoundary } from './windows/plan-windows';
export { stackWindows } from './windows/stack-windows';
export { withWindowHolds, type WindowClock } from './windows/window-holds';
