/** JSON values as construct props take them (machine configuration attributes): read-only arrays and objects accepted. */
export type { ReadonlyJsonObject as JsonObject, ReadonlyJsonValue as JsonValue } from '../domain/json-value';
