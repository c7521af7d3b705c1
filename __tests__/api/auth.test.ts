import { TokenSource } from '../../src/api/client/auth';

describe('TokenSource', () => {
  test('authenticates once for concurrent first calls', async () => {
    let exchanges = 0;
    const tokens = new TokenSource(async () => `t${++exchanges}`);
    const got = await Promise.all([tokens.token(), tokens.token(), tokens.token()]);
    expect(got).toEqual(['t1', 't1', 't1']);
    expect(exchanges).toBe(1);
  });

  test('concurrent refreshes of the same stale token exchange once', async () => {
    let exchanges = 0;
    const tokens = new TokenSource(async () => `t${++exchanges}`);
    const stale = await tokens.token();
    const fresh = await Promise.all([tokens.refresh(stale), tokens.refresh(stale), tokens.refresh(stale)]);
    expect(fresh).toEqual(['t2', 't2', 't2']);
    expect(await tokens.token()).toBe('t2');
    // a refresh for a token already replaced does not exchange again
    expect(await tokens.refresh(stale)).toBe('t2');
    expect(exchanges).toBe(2);
  });

  test('a failed exchange is not cached', async () => {
    let exchanges = 0;
    const tokens = new TokenSource(async () => {
      exchanges++;
      if (exchanges === 1) throw new Error('down');
      return 'ok';
    });
    await expect(tokens.token()).rejects.toThrow('down');
    await expect(tokens.token()).resolves.toBe('ok');
    expect(exchanges).toBe(2);
  });
});
