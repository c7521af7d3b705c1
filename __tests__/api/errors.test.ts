import { Code, ConnectError } from '@connectrpc/connect';
import { FleetformError } from '../../src/domain/errors';
import { redact, ServiceError, statusCodeName, statusCodeOf, toServiceError } from '../../src/api/client/errors';

describe('ServiceError', () => {
  test('canonical names match the numeric codes', () => {
    expect(statusCodeName(Code.NotFound)).toBe('NOT_FOUND');
    expect(statusCodeName(Code.Canceled)).toBe('CANCELLED');
    expect(statusCodeName(Code.Unauthenticated)).toBe('UNAUTHENTICATED');
    expect(statusCodeName(99)).toBe('UNKNOWN');
    expect(statusCodeOf('FAILED_PRECONDITION')).toBe(Code.FailedPrecondition);
  });

  test('carries code, method and the service message, and is a FleetformError', () => {
    const e = toServiceError(new ConnectError('model version 1 already exists', Code.AlreadyExists), {
      method: 'MLTrainingService.SubmitTrainingJob',
    });
    expect(e).toBeInstanceOf(ServiceError);
    expect(e).toBeInstanceOf(FleetformError);
    expect(e.code).toBe('ALREADY_EXISTS');
    expect(e.method).toBe('MLTrainingService.SubmitTrainingJob');
    expect(e.detail).toBe('model version 1 already exists');
    expect(e.message).toBe('MLTrainingService.SubmitTrainingJob failed: ALREADY_EXISTS: model version 1 already exists');
    expect(e.hint).toMatch(/new model version/);
  });

  test('hints tell a wrong key from a key without owner permission', () => {
    const wrongKey = toServiceError(new ConnectError('failed to authenticate', Code.PermissionDenied), {
      method: 'AuthService.Authenticate',
    });
    expect(wrongKey.hint).toMatch(/FLEETFORM_API_KEY and FLEETFORM_API_KEY_ID/);
    const notOwner = toServiceError(new ConnectError('not an owner', Code.PermissionDenied), {
      method: 'MLTrainingService.ListTrainingJobs',
    });
    expect(notOwner.hint).toMatch(/organization owner/);
    const unauth = toServiceError(new ConnectError('authentication required', Code.Unauthenticated), { method: 'AppService.GetRobot' });
    expect(unauth.hint).toMatch(/FLEETFORM_API_KEY/);
    const down = toServiceError(new ConnectError('connect ECONNREFUSED', Code.Unavailable), {
      method: 'AppService.GetRobot',
      serviceHost: 'http://127.0.0.1:1',
    });
    expect(down.hint).toContain('http://127.0.0.1:1');
    const cancel = toServiceError(new ConnectError('job is completed', Code.FailedPrecondition), {
      method: 'MLTrainingService.CancelTrainingJob',
    });
    expect(cancel.hint).toMatch(/PENDING or IN_PROGRESS/);
    const del = toServiceError(new ConnectError('job is running', Code.FailedPrecondition), {
      method: 'MLTrainingService.DeleteCompletedTrainingJob',
    });
    expect(del.hint).toMatch(/cancel it first/);
    const deadline = toServiceError(new ConnectError('timeout', Code.DeadlineExceeded), { method: 'AppService.GetRobot', timeoutMs: 1500 });
    expect(deadline.hint).toContain('1500 ms');
  });

  test('secrets are masked in the message, and no cause is kept', () => {
    const key = 'sekrit-key-0123456789';
    const e = toServiceError(new ConnectError(`bad key ${key} for entity`, Code.PermissionDenied), {
      method: 'AuthService.Authenticate',
      secrets: [key],
    });
    expect(e.message).not.toContain(key);
    expect(e.format()).not.toContain(key);
    expect(e.message).toContain('bad key *** for entity');
    expect(e.cause).toBeUndefined();
    expect(redact('abc', ['ab'])).toBe('abc'); // too short to be a secret worth masking
  });

  test('non-connect errors become UNKNOWN', () => {
    const e = toServiceError(new Error('weird'), { method: 'AppService.GetRobot' });
    expect(e.code).toBe('UNKNOWN');
    expect(e.detail).toBe('weird');
  });
});
