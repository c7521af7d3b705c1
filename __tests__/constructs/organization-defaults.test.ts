import { App, TerraformStack } from 'cdktf';
import { FleetProvider, Fragment, FragmentTag, OrganizationDefaults, Secret } from '../../src';
import { unescapeTemplate } from '../../src/domain';
import { errorsOf, issueAt, newStack, resourceOf, synth } from './helpers';

const fragmentsOf = (r: Record<string, unknown>): unknown => JSON.parse(unescapeTemplate(r.fragments as string));

describe('OrganizationDefaults', () => {
  test('synthesizes the imports as JSON text, with typed variables, prefix and version, and waits for a tag the stack declares', () => {
    const { stack } = newStack();
    const rig = new Fragment(stack, 'rig');
    new FragmentTag(stack, 'stable', { fragment: rig, tag: 'stable' });
    new OrganizationDefaults(stack, 'defaults', {
      fragments: [
        { fragment: rig, version: 'stable', prefix: 'front', variables: { pin: 11, fast: true, limits: { max: 3 } } },
        { fragment: 'frag-2' },
      ],
      organizationId: 'org-1',
    });
    const r = resourceOf(synth(stack), 'fleetform_organization_defaults', 'defaults');
    expect(fragmentsOf(r)).toEqual([
      { id: '${fleetform_fragment.rig.id}', version: 'stable', prefix: 'front', variables: { pin: 11, fast: true, limits: { max: 3 } } },
      { id: 'frag-2' },
    ]);
    expect(r.organization_id).toBe('org-1');
    expect(r.depends_on).toEqual(['fleetform_fragment_tag.stable']);
    expect(OrganizationDefaults.isOrganizationDefaults(stack.node.findChild('defaults'))).toBe(true);
  });

  test('bad props are refused naming the prop; a secret variable is refused with where to give it', () => {
    const { stack } = newStack();
    expect(() => new OrganizationDefaults(stack, 'a', { fragments: [{ fragment: '' }] })).toThrow(/fragments/);
    expect(() => new OrganizationDefaults(stack, 'b', { fragments: [{ fragment: 'f', version: '' }] })).toThrow(/revision number or a tag/);
    expect(
      () =>
        new OrganizationDefaults(stack, 'c', {
          fragments: [{ fragment: 'f', variables: { key: Secret.fromEnv('KEY') as unknown as string } }],
        }),
    ).toThrow(/give a secret on each machine/);
    expect(() => new OrganizationDefaults(stack, 'd', { fragments: [{ fragment: 'f', disabled: true } as never] })).toThrow(/disabled/);
  });

  test("two for one organization are an error naming both; the provider's organization counts as the one unset", () => {
    const app = new App();
    const stack = new TerraformStack(app, 's');
    new FleetProvider(stack, 'cloud', { organizationId: 'org-1' });
    new OrganizationDefaults(stack, 'a', { fragments: [] });
    new OrganizationDefaults(stack, 'b', { fragments: [], organizationId: 'org-1' });
    new OrganizationDefaults(stack, 'c', { fragments: [], organizationId: 'org-2' });
    expect(errorsOf(app)).toEqual(['s/a organizationId organization-defaults-twice', 's/b organizationId organization-defaults-twice']);
    expect(issueAt(app, 's/a', 'organizationId').message).toBe(
      'organization org-1 has its default fragments declared more than once: here and at s/b',
    );
  });

  test('the same fragment twice without two prefixes is an error', () => {
    const { app, stack } = newStack();
    new OrganizationDefaults(stack, 'd', {
      fragments: [{ fragment: 'f' }, { fragment: 'f', prefix: 'x' }, { fragment: 'f' }],
    });
    expect(errorsOf(app)).toEqual(['stack/d fragments[2] organization-defaults-same-import']);
  });
});
