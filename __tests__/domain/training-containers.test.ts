import {
  checkContainerVersion,
  CONTAINER_EOL_CODE,
  CONTAINER_VERSION_CODE,
  type TrainingContainer,
} from '../../src/domain/training-containers';

const containers: TrainingContainer[] = [
  { key: 'tf:2.15', uri: 'u1', framework: 'tensorflow', description: 'Tensorflow 2.15', eol: new Date('2026-03-03T00:00:00Z') },
  { key: 'tf:2.17', uri: 'u2', framework: 'tensorflow', description: 'Tensorflow 2.17', eol: new Date('2030-06-01T00:00:00Z') },
  { key: 'sklearn:1.5', uri: 'u3', framework: 'scikit-learn', description: 'scikit-learn 1.5' },
];
const now = new Date('2026-12-01T00:00:00Z');

describe('container versions of custom training jobs', () => {
  test('one the service does not list is an error naming the field and every listed key', () => {
    const [issue, ...rest] = checkContainerVersion('tf-2.15', containers, now);
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({ severity: 'error', code: CONTAINER_VERSION_CODE, path: 'container_version' });
    expect(issue?.hint).toBe("set containerVersion to one of: tf:2.15, tf:2.17, sklearn:1.5, or leave it out for the service's default");
  });

  test('one past its end of life is a warning naming the date and the supported ones', () => {
    const [issue] = checkContainerVersion('tf:2.15', containers, now);
    expect(issue).toMatchObject({ severity: 'warning', code: CONTAINER_EOL_CODE });
    expect(issue?.message).toContain('end of life on 2026-03-03');
    expect(issue?.hint).toBe('move to a supported container: tf:2.17, sklearn:1.5');
    expect(checkContainerVersion('tf:2.15', containers, new Date('2026-03-02T23:59:59Z'))).toEqual([]);
  });

  test('a supported one, one with no end of life, and none named say nothing', () => {
    expect(checkContainerVersion('tf:2.17', containers, now)).toEqual([]);
    expect(checkContainerVersion('sklearn:1.5', containers, now)).toEqual([]);
    expect(checkContainerVersion('', containers, now)).toEqual([]);
  });
});
