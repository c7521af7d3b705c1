/** The service's not-found answers are read by the client: kinds use its rule. */
export { unlessNotFound } from '../../api/client/errors';
