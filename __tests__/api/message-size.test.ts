/** The request sizes a plan computes are the sizes the official SDK's messages encode to. */
import fc from 'fast-check';
import type { JsonValue } from '@bufbuild/protobuf';
import { loadSdk } from '../../src/api/sdk';
import { SERVICE_MAX_MESSAGE_BYTES, updateRobotPartRequestSize } from '../../src/api/message-size';
import { configText } from '../../src/domain/config-text';
import { UpdateRobotPartRequestWithEncodedConfig } from '../../src/api/own-messages';

const jsonObject = fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue(), { maxKeys: 8 }) as fc.Arbitrary<Record<string, JsonValue>>;

test('updateRobotPartRequestSize bounds the encoded UpdateRobotPartRequest with the config as text, within 64 bytes', async () => {
  const sdk = await loadSdk();
  fc.assert(
    fc.property(jsonObject, fc.string(), (config, name) => {
      const request = new UpdateRobotPartRequestWithEncodedConfig({
        id: '3f1c2d9e-8a7b-4c6d-9e0f-1a2b3c4d5e6f',
        name,
        robotConfigJson: configText(config),
        lastKnownUpdate: sdk.Timestamp.fromDate(new Date(Date.now())),
      });
      const encoded = request.toBinary().length;
      const computed = updateRobotPartRequestSize(name, config);
      expect(computed).toBeGreaterThanOrEqual(encoded);
      expect(computed - encoded).toBeLessThanOrEqual(64);
    }),
    { numRuns: 200, seed: 29 },
  );
});

test('the limit is 4 MiB', () => {
  expect(SERVICE_MAX_MESSAGE_BYTES).toBe(4_194_304);
});
