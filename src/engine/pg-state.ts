/** The engine's face for state kept in PostgreSQL; loaded only when a project's state is there. */
export { PgStateBackend } from './state/pg-backend';
