export { servePlugin, type RunningPlugin } from './plugin/serve';
export { HandshakeError, MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from './plugin/handshake';
export { providerHandlers } from './provider-handlers';
export type { Connect, ProviderBlock, ProviderConnection } from './provider-block';
