/** A JSON value as machine configuration attributes hold them. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** An object of JSON values: the `attributes` of a modular resource. */
export type JsonObject = { readonly [key: string]: JsonValue };
