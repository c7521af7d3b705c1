import { hclMatches } from '../../src/provider/config-address';

const hcl = `
resource "fleetform_machine" "picker" {
  name = "picker-1"
  config = jsonencode({ components = [] })
}

resource "fleetform_machine" "sorter" {
  name     = "sorter-1"
}

resource "fleetform_training_job" "detector" {
  model_name    = "box-detector"
  model_version = "\${var.version}"
}
`;

test('an HCL resource is found by its literal naming attributes', () => {
  expect(hclMatches('fleetform_machine', { name: 'sorter-1' }, [hcl])).toEqual(['fleetform_machine.sorter']);
  expect(hclMatches('fleetform_machine', { name: 'picker-1' }, [hcl])).toEqual(['fleetform_machine.picker']);
  expect(hclMatches('fleetform_machine', { name: 'other' }, [hcl])).toEqual([]);
  // An interpolated value is not compared: the literal one alone names the block.
  expect(hclMatches('fleetform_training_job', { model_name: 'box-detector', model_version: '2' }, [hcl])).toEqual([
    'fleetform_training_job.detector',
  ]);
  expect(hclMatches('fleetform_dataset', { name: 'picker-1' }, [hcl])).toEqual([]);
});
