/**
 * What an attribute left unset stands for, where it names where a resource lives: the
 * provider block's setting, else the one there is. Kinds declare these as their service
 * defaults (the provider's schema and the reference docs show them); constructs' props
 * document the same fact under their camelCase names.
 */

/** An unset `organization_id`. */
export const ORGANIZATION_DEFAULT = "the provider's organization_id, else the only organization the API key sees";

/** An unset `location_id`. */
export const LOCATION_DEFAULT = "the provider's location_id, else the only location of the organization";
