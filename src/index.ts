export {};
export * from './api/client';
