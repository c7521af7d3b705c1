import { jsonEqual, unknownValue, type JsonObject, type JsonValue } from '../json';

/**
 * The view a plan shows of an object about to be made: an attribute left to the service's
 * choice is known after apply. Apply still sends the unspecified value (a planned unknown
 * matches whatever is applied), and state keeps it, so the next plan shows no change.
 */
export function withServiceChoices(view: JsonObject, chosen: Readonly<Record<string, JsonValue>> | undefined): JsonObject {
  if (!chosen) return view;
  let shown: JsonObject | undefined;
  for (const [key, unspecified] of Object.entries(chosen)) {
    const value = view[key];
    if (value === undefined || !jsonEqual(value, unspecified)) continue;
    shown ??= { ...view };
    shown[key] = unknownValue;
  }
  return shown ?? view;
}
