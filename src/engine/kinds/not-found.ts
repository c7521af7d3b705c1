import { ServiceError } from '../../api/client';

/** Runs a read; a NOT_FOUND answer becomes undefined. */
export async function unlessNotFound<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'NOT_FOUND') return undefined;
    throw err;
  }
}
