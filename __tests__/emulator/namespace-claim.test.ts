/** Offline work with one's own modules: a namespace no organization has is claimed by its first publish. */
import { EmulatorService } from '../../src/api/emulator-control';
import { loadServices } from '../../src/api/services';
import { useEmulator } from './fixture';
import { clientOf, codeOf } from './helpers';

const fx = useEmulator({ per: 'test' });

test('publishing yardco:drive claims "yardco" for the publisher\'s organization; its modules then read back', async () => {
  const controls = await clientOf(fx.emulator, EmulatorService);
  const res = await controls.publishModuleVersion({
    moduleId: 'yardco:drive',
    version: '1.0.0',
    models: [{ api: 'rdk:component:base', model: 'yardco:drive:wheels' }],
  });
  expect(res.moduleId).toBe('yardco:drive');
  await controls.publishModuleVersion({ moduleId: 'yardco:drive', version: '1.1.0', models: [] });
  const app = await clientOf(fx.emulator, (await loadServices()).app);
  const { module } = await app.getModule({ moduleId: 'yardco:drive' });
  expect(module).toMatchObject({ moduleId: 'yardco:drive', organizationId: fx.emulator.credentials.organizationId });
  expect(module?.versions.map((v) => v.version)).toEqual(['1.0.0', '1.1.0']);
});

test('a claimed namespace belongs to the claimer: another organization cannot publish to it', async () => {
  const controls = await clientOf(fx.emulator, EmulatorService);
  await controls.publishModuleVersion({ moduleId: 'yardco:drive', version: '1.0.0', models: [] });
  const created = await controls.createOrganization({ name: 'Rival', publicNamespace: 'rival' });
  const rival = await clientOf(fx.emulator, EmulatorService, { credentials: created });
  expect(await codeOf(rival.publishModuleVersion({ moduleId: 'yardco:other', version: '1.0.0', models: [] }))).toBe('PermissionDenied');
});

test('a name that cannot be a namespace is refused with the rule', async () => {
  const controls = await clientOf(fx.emulator, EmulatorService);
  await expect(controls.publishModuleVersion({ moduleId: 'Yard_Co:drive', version: '1.0.0', models: [] })).rejects.toThrow(
    /lowercase letters, digits/,
  );
});
