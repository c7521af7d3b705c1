import { formatGoDuration, moduleStartupTimeout, parseDuration, parseGoDuration, resourceConfigurationTimeout } from '../../src/domain';
import { InputError } from '../../src/domain/errors';

describe('parseGoDuration', () => {
  test.each([
    ['4m0s', 240_000],
    ['7m15s', 435_000],
    ['1h2m3.5s', 3_723_500],
    ['300ms', 300],
    ['1.5h', 5_400_000],
    ['2s500ms', 2_500],
    ['1500us', 1.5],
    ['1500µs', 1.5],
    ['1000000ns', 1],
    ['0', 0],
    ['0s', 0],
    ['.5s', 500],
    ['1.s', 1000],
    ['-1m', -60_000],
    ['+30s', 30_000],
  ])('%j = %d ms', (text, ms) => expect(parseGoDuration(text)).toBe(ms));
  test.each(['', '1', '5 m', 'm', '1d', '1.5.5s', '.s', 'abc', '1m 30s', '1M', 's5'])('%j is not a Go duration', (text) => {
    expect(parseGoDuration(text)).toBeUndefined();
  });
});

describe('parseDuration: the durations fleetform itself reads', () => {
  test.each([
    ['250', 250],
    ['250ms', 250],
    [' 2s ', 2000],
    ['1m30s', 90_000],
    ['1.5s', 1500],
    ['0', 0],
    ['1500us', 2],
  ])('%j = %d whole ms', (text, ms) => expect(parseDuration(text, '--interval')).toBe(ms));

  test.each(['', 'soon', '5 m', '-1s', '1d', '250 ms'])('%j is refused, naming the flag and the forms', (text) => {
    let caught: unknown;
    try {
      parseDuration(text, '--interval');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InputError);
    const error = caught as InputError;
    expect(error.path).toBe('--interval');
    expect(error.message).toBe(`must be a duration like 300ms, 45s or 2m, not ${JSON.stringify(text)}`);
    expect(error.hint).toMatch(/Go duration such as 1m30s, or a bare number of milliseconds/);
  });

  test('a minimum is named in the error, and a purpose is added to the hint', () => {
    expect(parseDuration('100ms', 'X', { minimumMs: 100 })).toBe(100);
    expect(() => parseDuration('50ms', 'X', { minimumMs: 100, hint: 'how often machines are read' })).toThrow(
      expect.objectContaining({
        path: 'X',
        message: 'must be a duration of at least 100ms, like 300ms, 45s or 2m, not "50ms"',
        hint: expect.stringContaining('; how often machines are read'),
      }),
    );
  });
});

describe('formatGoDuration', () => {
  test.each([
    [60_000, '1m0s'],
    [300_000, '5m0s'],
    [240_000, '4m0s'],
    [435_000, '7m15s'],
    [3_723_500, '1h2m3.5s'],
    [3_600_000, '1h0m0s'],
    [300, '300ms'],
    [1.5, '1.5ms'],
    [0.0015, '1.5µs'],
    [0.000_5, '500ns'],
    [0, '0s'],
    [1_500, '1.5s'],
    [-60_000, '-1m0s'],
  ])('%d ms = %j', (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text);
    expect(parseGoDuration(text)).toBe(ms);
  });
});

describe('timeouts from the machine server environment', () => {
  test.each([
    [{}, 60_000, 300_000],
    [{ VIAM_RESOURCE_CONFIGURATION_TIMEOUT: '4m0s', VIAM_MODULE_STARTUP_TIMEOUT: '7m15s' }, 240_000, 435_000],
    [{ VIAM_RESOURCE_CONFIGURATION_TIMEOUT: '', VIAM_MODULE_STARTUP_TIMEOUT: undefined }, 60_000, 300_000],
  ])('%j', (env, resourceMs, startupMs) => {
    expect(resourceConfigurationTimeout(env)).toEqual({ ms: resourceMs });
    expect(moduleStartupTimeout(env)).toEqual({ ms: startupMs });
  });
  test.each(['soon', '10', '-5m', '0s'])('unusable %j falls back to the default with a warning', (text) => {
    const r = resourceConfigurationTimeout({ VIAM_RESOURCE_CONFIGURATION_TIMEOUT: text });
    expect(r.ms).toBe(60_000);
    expect(r.warning).toContain('VIAM_RESOURCE_CONFIGURATION_TIMEOUT');
    expect(r.warning).toContain('1m0s');
    const s = moduleStartupTimeout({ VIAM_MODULE_STARTUP_TIMEOUT: text });
    expect(s.ms).toBe(300_000);
    expect(s.warning).toContain('5m0s');
  });
});
