export * from './constructs';
// The client's names, deprecated here: the client is `fleetform/client`.
export * from './root-client';
