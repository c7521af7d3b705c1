/** `fleetform.emulator.v1.EmulatorService`: the emulator's own controls (organization-owner keys only). */
import { Struct, type JsonObject } from '@bufbuild/protobuf';
import { Code, type HandlerContext, type ServiceImpl } from '@connectrpc/connect';
import type { EmulatorServiceType } from '../../api/emulator-control';
import { InputError, isTerminal, type ModelFramework, type ModelType } from '../../domain';
import type { Principal } from '../auth/principal';
import { advanceJob, failJob, TransitionError, type Transition } from '../logic/training';
import { moduleCardVersions } from '../logic/deployments';
import { deploymentsOfOrganization } from '../store/deployments';
import { registryVersions, setVersionDeprecation, setVersionMinViamServer } from '../store/registry';
import { setPartViamServerVersion } from '../store/server-versions';
import { newId } from '../store/statements';
import { isOrganizationOwner } from '../auth/principal';
import { parseMachineFault } from '../sim/machine-faults';
import { maintenanceSensorShortName } from '../../domain/maintenance';
import { principalOf, timestamp, type Backend } from './context';
import { failedPrecondition, invalidArgument, notFound, permissionDenied, required } from './errors';
import { partFor } from './access';
import { partsToCheckIn } from '../store/checkins';
import { ClockError, type ClockState } from '../clock/clock';
import { checkFaultMethod, faultableMethodNames } from './fault-spec';
import { applyTransition, datasetTypeOf, jobFor, settleTrainingJobs } from './ml-training';
import { createOrganization } from './organizations';
import { ownedOrganizations, publishModuleVersion, publishTrainingScript } from './publish';
import { findRegistryItem } from '../logic/registry-items';

/** The part a control call names (a part id, or a machine's name or id: its first part), if the caller may write it. */
function simulatedPart(backend: Backend, p: Principal, machine: string): string {
  const parts = partsToCheckIn(backend.db).filter((x) => x.id === machine || x.robotId === machine || x.robotName === machine);
  const own = parts.filter((x) => {
    try {
      partFor(backend.db, p, x.id, 'write');
      return true;
    } catch {
      return false;
    }
  });
  if (own.length === 0) throw notFound(`machine: no machine part of yours is named or has the id ${JSON.stringify(machine)}`);
  const names = new Set(own.map((x) => x.robotId));
  if (names.size > 1)
    throw invalidArgument(`machine: ${own.length} machines are named ${JSON.stringify(machine)}; give the machine's id or the part's id`);
  return (own.find((x) => x.id === machine) ?? (own[0] as (typeof own)[number])).id;
}

const SERVER_VERSION = /^v?\d+\.\d+\.\d+([-+][\w.-]+)?$/;

/** A minimum viam-server version as a control takes it: a release version, or '' for none. */
function checkedServerVersion(minimum: string): string {
  if (minimum !== '' && !SERVER_VERSION.test(minimum)) {
    throw invalidArgument(`min_viam_server_version: ${JSON.stringify(minimum)} is not a version such as 0.98.0`);
  }
  return minimum;
}

function controller(ctx: HandlerContext): Principal {
  const p = principalOf(ctx);
  if (!p.grants.some((g) => g.resourceType === 'organization' && g.role === 'owner')) {
    throw permissionDenied('emulator controls need an organization owner API key');
  }
  return p;
}

function transition(run: () => Transition): Transition {
  try {
    return run();
  } catch (err) {
    if (err instanceof TransitionError) throw failedPrecondition(err.message);
    throw err;
  }
}

function clockMessage(state: ClockState, trainingDurationMs: number) {
  return { now: timestamp(state.now), frozen: state.frozen, trainingDurationMs: BigInt(trainingDurationMs) };
}

export function controlService(backend: Backend): ServiceImpl<EmulatorServiceType> {
  const { db } = backend;
  return {
    publishModuleVersion(req, ctx) {
      const p = controller(ctx);
      const result = publishModuleVersion(
        db,
        p,
        {
          moduleId: required(req.moduleId, 'module_id'),
          version: required(req.version, 'version'),
          models: req.models,
          minViamServerVersion: checkedServerVersion(req.minViamServerVersion),
        },
        backend.now(),
      );
      return { moduleId: result.moduleId, version: req.version, updates: result.updates };
    },

    publishTrainingScript(req, ctx) {
      const p = controller(ctx);
      const result = publishTrainingScript(
        db,
        p,
        {
          itemId: required(req.itemId, 'item_id'),
          version: required(req.version, 'version'),
          modelType: req.modelType as ModelType,
          modelFramework: req.modelFramework as ModelFramework,
        },
        backend.now(),
      );
      return { itemId: result.itemId, version: req.version };
    },

    advanceTrainingJob(req, ctx) {
      let job = jobFor(backend, controller(ctx), req.id);
      const previousStatus = job.status;
      do {
        const current = job;
        job = applyTransition(
          backend,
          transition(() => advanceJob(current, backend.now(), newId, datasetTypeOf(backend, current))),
        );
      } while (req.toEnd && !isTerminal(job.status));
      return { id: job.id, previousStatus, status: job.status };
    },

    failTrainingJob(req, ctx) {
      const job = jobFor(backend, controller(ctx), req.id);
      const code = req.code === 0 ? Code.Internal : req.code;
      if (!Number.isInteger(code) || code < 1 || code > 16) throw invalidArgument(`code: ${code} is not a status code 1..16`);
      const message = req.message || 'training failed';
      const failed = applyTransition(
        backend,
        transition(() => failJob(job, code, message, backend.now())),
      );
      return { id: failed.id, previousStatus: job.status, status: failed.status };
    },

    getClock(_req, ctx) {
      controller(ctx);
      return clockMessage(backend.clock.state(), backend.trainingDurationMs);
    },

    freezeClock(_req, ctx) {
      controller(ctx);
      return clockMessage(backend.clock.freeze(), backend.trainingDurationMs);
    },

    resumeClock(_req, ctx) {
      controller(ctx);
      return clockMessage(backend.clock.resume(), backend.trainingDurationMs);
    },

    stepClock(req, ctx) {
      controller(ctx);
      const ms = Number(req.milliseconds);
      try {
        backend.clock.step(ms);
      } catch (err) {
        if (err instanceof ClockError) throw invalidArgument(`milliseconds: ${err.message}`);
        throw err;
      }
      settleTrainingJobs(backend);
      return clockMessage(backend.clock.state(), backend.trainingDurationMs);
    },

    listModuleCards(req, ctx) {
      const p = controller(ctx);
      if (req.organizationId !== '' && !isOrganizationOwner(p, req.organizationId)) {
        throw permissionDenied(`owner permission required on organization ${req.organizationId}`);
      }
      const orgs = req.organizationId !== '' ? [req.organizationId] : ownedOrganizations(db, p).map((o) => o.id);
      const versionsOf = new Map<string, string[]>();
      const available = (moduleId: string): string[] => {
        let v = versionsOf.get(moduleId);
        if (!v) {
          const item = findRegistryItem(db, moduleId);
          v = item ? registryVersions(db, item.itemId).map((x) => x.version) : [];
          versionsOf.set(moduleId, v);
        }
        return v;
      };
      const cards = orgs
        .flatMap((orgId) => deploymentsOfOrganization(db, orgId))
        .filter((d) => req.machineId === '' || d.machineId === req.machineId)
        .map((d) => ({
          machineId: d.machineId,
          machineName: d.machineName,
          partId: d.partId,
          partName: d.partName,
          locationId: d.locationId,
          organizationId: d.organizationId,
          moduleName: d.moduleName,
          moduleId: d.moduleId,
          ...moduleCardVersions(d, available(d.moduleId)),
          restartCount: d.restartCount,
          updatedAt: timestamp(d.updatedAt),
        }));
      return { cards };
    },

    createOrganization(req, ctx) {
      controller(ctx);
      return createOrganization(db, { name: req.name, publicNamespace: req.publicNamespace.trim() }, backend.now());
    },

    injectFault(req, ctx) {
      controller(ctx);
      required(req.method, 'method');
      if (!Number.isInteger(req.code) || req.code < 1 || req.code > 16) {
        throw invalidArgument(`code: ${req.code} is not a status code 1..16`);
      }
      const { auth, app, dataset, mlTraining } = backend.services;
      try {
        checkFaultMethod(req.method, faultableMethodNames([auth, app, dataset, mlTraining]), 'method');
      } catch (err) {
        throw invalidArgument(err instanceof InputError ? `${err.message}; ${err.hint ?? ''}` : String(err));
      }
      backend.faults.add(req.method, req.code as Code, req.message || 'injected fault', req.count || 1);
      return {};
    },

    clearFaults(_req, ctx) {
      controller(ctx);
      return { cleared: backend.faults.clear() };
    },

    setMachineFaults(req, ctx) {
      controller(ctx);
      const faults = req.specs.map((spec, i) => {
        try {
          return parseMachineFault(spec, `specs[${i}]`);
        } catch (err) {
          if (err instanceof InputError) throw invalidArgument(err.format());
          throw err;
        }
      });
      backend.machineFaults.replace(faults);
      return { specs: faults.map((f) => f.text) };
    },

    setSensorReading(req, ctx) {
      const p = controller(ctx);
      const part = simulatedPart(backend, p, required(req.machine, 'machine'));
      const sensor = maintenanceSensorShortName(required(req.sensor, 'sensor'));
      backend.sensorReadings.set(part, sensor, (req.readings?.toJson() as Record<string, unknown> | undefined) ?? {});
      return { readings: Struct.fromJson((backend.sensorReadings.get(part, sensor) ?? {}) as JsonObject) };
    },

    setModuleVersionStatus(req, ctx) {
      const p = controller(ctx);
      const moduleId = required(req.moduleId, 'module_id');
      const version = required(req.version, 'version');
      const item = findRegistryItem(db, moduleId);
      if (!item || item.type !== 'module') throw notFound(`module ${moduleId} not found in the registry`);
      if (!isOrganizationOwner(p, item.organizationId)) {
        throw permissionDenied(`module ${item.itemId} belongs to organization ${item.organizationId}, which this API key does not own`);
      }
      if (!registryVersions(db, item.itemId).some((v) => v.version === version)) {
        throw notFound(`module ${item.itemId} has no version ${version}`);
      }
      const minimum = req.minViamServerVersion === undefined ? undefined : checkedServerVersion(req.minViamServerVersion);
      db.transaction(() => {
        if (req.deprecated !== undefined) {
          setVersionDeprecation(db, item.itemId, version, req.deprecated ? req.deprecationMessage : undefined, backend.now());
        }
        if (minimum !== undefined) setVersionMinViamServer(db, item.itemId, version, minimum);
      }).immediate();
      const now = registryVersions(db, item.itemId).find((v) => v.version === version);
      return {
        moduleId: item.itemId,
        version,
        deprecated: now?.deprecated !== undefined,
        deprecationMessage: now?.deprecated ?? '',
        minViamServerVersion: now?.minViamServerVersion ?? '',
      };
    },

    setViamServerVersion(req, ctx) {
      const p = controller(ctx);
      const partId = simulatedPart(backend, p, required(req.machine, 'machine'));
      setPartViamServerVersion(db, partId, req.version);
      return { partId, version: req.version };
    },
  };
}
