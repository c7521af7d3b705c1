/** Packages on a simulated machine (pure steps), and the package fault. */
import { parseMachineFault, MachineFaults } from '../../src/emulator/sim/machine-faults';
import {
  checkIn,
  isHealthy,
  MachineState,
  PackageState,
  ResourceState,
  type FetchedConfig,
  type FetchedPackage,
} from '../../src/emulator/sim/machine-state';

const timings = { moduleStartMs: 1000, resourceConfigureMs: 500 };
const detector: FetchedPackage = {
  name: 'box-detector',
  packageId: 'org-1/box-detector',
  type: 'ml_model',
  version: '3',
  totalBytes: 2048,
};

function config(pkg: FetchedPackage, revision = 'r1'): FetchedConfig {
  return {
    revision,
    modules: [],
    resources: [
      {
        kind: 'services',
        entry: {
          name: 'mlmodel',
          api: 'rdk:service:mlmodel',
          model: 'rdk:builtin:tflite_cpu',
          attributes: { model_path: '${packages.ml_model.box-detector}/model.tflite' },
        },
      },
      { kind: 'components', entry: { name: 'cam', api: 'rdk:component:camera', model: 'rdk:builtin:fake' } },
    ],
    unresolved: [],
    packages: [pkg],
  };
}

const healthy = { crashes: () => false, unhealthy: () => false };

test('a package downloads, then the resource using it configures; the machine is healthy once both are ready', () => {
  const a = checkIn(undefined, config(detector), 0, timings, healthy, false);
  expect(a.run.packages?.[0]).toMatchObject({ name: 'box-detector', version: '3', state: PackageState.DOWNLOADING, totalBytes: 2048 });
  expect(a.run.state).toBe(MachineState.INITIALIZING);
  expect(a.logs.map((l) => l.message)).toContain('downloading package box-detector (org-1/box-detector@3)');
  const b = checkIn(a.run, config(detector), 600, timings, healthy, false);
  expect(b.run.resources.map((r) => r.state)).toEqual([ResourceState.CONFIGURING, ResourceState.READY]);
  const c = checkIn(b.run, config(detector), 1000, timings, healthy, false);
  expect(c.run.packages?.[0]?.state).toBe(PackageState.READY);
  expect(c.run.resources[0]?.state).toBe(ResourceState.CONFIGURING);
  const d = checkIn(c.run, config(detector), 1500, timings, healthy, false);
  expect(d.run.resources[0]?.state).toBe(ResourceState.READY);
  expect(isHealthy(d.run, 'r1')).toBe(true);
});

test('a package the registry lacks fails at once and its resource is unhealthy; once it exists it downloads', () => {
  const missing = { ...detector, missing: 'the registry has no version 3 of org-1/box-detector' };
  const a = checkIn(undefined, config(missing), 0, timings, healthy, false);
  expect(a.run.packages?.[0]).toMatchObject({ state: PackageState.FAILED, error: 'the registry has no version 3 of org-1/box-detector' });
  expect(a.run.resources[0]).toMatchObject({
    state: ResourceState.UNHEALTHY,
    error: 'package box-detector is not available: the registry has no version 3 of org-1/box-detector',
  });
  expect(isHealthy(a.run, 'r1')).toBe(false);
  const b = checkIn(a.run, config(detector), 100, timings, healthy, false);
  expect(b.run.packages?.[0]?.state).toBe(PackageState.DOWNLOADING);
  const c = checkIn(checkIn(b.run, config(detector), 1100, timings, healthy, false).run, config(detector), 1600, timings, healthy, false);
  expect(isHealthy(c.run, 'r1')).toBe(true);
});

test('package=NAME@VERSION:fail makes that version fail to load, by local name, registry name or id', () => {
  expect(parseMachineFault('package=box-detector@3:fail', 'f')).toEqual({
    kind: 'package-fails',
    name: 'box-detector',
    version: '3',
    percent: 100,
    text: 'package=box-detector@3:fail',
  });
  expect(parseMachineFault('package=org-1/box-detector:fail:50%', 'f')).toMatchObject({
    kind: 'package-fails',
    name: 'org-1/box-detector',
    percent: 50,
  });
  expect(() => parseMachineFault('package=box-detector@:fail', 'f')).toThrow(/not a package with an optional version/);
  expect(() => parseMachineFault('package=box-detector@3:broken', 'f')).toThrow(/expected the effect "fail"/);

  const faults = new MachineFaults([parseMachineFault('package=box-detector@3:fail', 'f')]);
  const machine = { machineId: 'm1', machineName: 'inspector-1' };
  const health = { ...healthy, packageFails: (p: FetchedPackage) => faults.packageFails(machine, [p.name, p.packageId], p.version) };
  const a = checkIn(undefined, config(detector), 0, timings, health, false);
  const b = checkIn(a.run, config(detector), 1000, timings, health, false);
  expect(b.run.packages?.[0]).toMatchObject({
    state: PackageState.FAILED,
    error: 'package box-detector failed to load: its contents could not be unpacked',
  });
  expect(b.run.resources[0]?.state).toBe(ResourceState.UNHEALTHY);
  // Another version is not hit.
  const four = { ...detector, version: '4' };
  const c = checkIn(b.run, config(four, 'r2'), 1100, timings, health, false);
  expect(checkIn(c.run, config(four, 'r2'), 2100, timings, health, false).run.packages?.[0]?.state).toBe(PackageState.READY);
});
