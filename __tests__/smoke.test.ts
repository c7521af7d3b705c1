import * as http from 'node:http';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { loadServices } from '../src/api/services';

test('router accepts descriptors', async () => {
  const s = await loadServices();
  const handler = connectNodeAdapter({
    routes: (r) => {
      r.service(s.mlTraining, {
        getTrainingJob: async (req) => ({ metadata: { id: req.id, modelName: 'x' } }),
      });
    },
  });
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const res = await fetch(`http://127.0.0.1:${port}/viam.app.mltraining.v1.MLTrainingService/GetTrainingJob`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'j1' }),
  });
  const body = await res.json();
  server.close();
  expect(body).toEqual({ metadata: { id: 'j1', modelName: 'x' } });
});
