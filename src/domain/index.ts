/** The pure domain layer: machine configuration rules, version policies, training enums. */
export * from './errors';
export * from './issue';
export * from './config';
export * from './validate';
export * from './triplet';
export * from './names';
export * from './version-policy';
export * from './placeholders';
export * from './module-env';
export * from './duration';
export * from './training';
export * from './registry';
export * from './suggest';
export * from './resource-attributes';
export * from './cycles';
export * from './json-path';
export * from './template-escape';
