import { unlistedModelMessage } from '../../src/engine/kinds/machine-modules';

describe("a model's case follows the module's manifest", () => {
  const ufactory = new Set(['viam:ufactory:xArm6', 'viam:ufactory:xArm7', 'viam:ufactory:lite6']);

  test('a model written in another case than the manifest lists names the listed one', () => {
    expect(unlistedModelMessage('viam:ufactory', '1.0.3', 'viam:ufactory:xarm6', ufactory)).toBe(
      "viam:ufactory@1.0.3 does not list model viam:ufactory:xarm6; it lists viam:ufactory:xArm6 (model names follow the module's manifest, case included)",
    );
  });

  test('a model the manifest does not list in any case is named alone', () => {
    expect(unlistedModelMessage('viam:ufactory', '1.0.3', 'viam:ufactory:xArm5', ufactory)).toBe(
      'viam:ufactory@1.0.3 does not list model viam:ufactory:xArm5',
    );
  });
});
