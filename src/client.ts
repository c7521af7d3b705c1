/**
 * `fleetform/client`: the typed client of the service's wire protocol on its own entry,
 * where its names (`Machine`, `Dataset`, `TrainingJob`: what the service returns) meet no
 * construct of the same name.
 */
export * from './api/client';
