import { createServiceClient } from '../src/api/client';
import { loadSdk } from '../src/api/sdk';
import { openSession, planAndApply } from './session';
import { pool } from './stats';

async function main(): Promise<void> {
  const size = Number(process.argv[2] ?? 2000);
  const s = await openSession(size, 10);
  await planAndApply(s.engine, s.a);
  const { apiKeyId, apiKey, locationId } = s.emu.credentials;
  const credentials = { type: 'api-key', authEntity: apiKeyId, payload: apiKey } as const;
  const machines = await s.client.appClient.listMachines(locationId);
  const partIds: string[] = [];
  for (const m of machines) partIds.push((await s.client.appClient.getMachineParts(m.id))[0]!.id);
  const emuCpu = () => { const f = require('node:fs').readFileSync(`/proc/${s.emu.pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
  const measure = async (label: string, read: (id: string) => Promise<unknown>) => {
    for (let r = 0; r < 3; r++) {
      const e0 = emuCpu(); const c0 = process.cpuUsage(); const t0 = performance.now();
      await pool(partIds, 64, read);
      const wall = (performance.now() - t0) / 1000; const cpu = process.cpuUsage(c0);
      console.log(label.padEnd(10), `wall ${wall.toFixed(2)} s`, `client cpu ${((cpu.user + cpu.system) / 1000 / partIds.length).toFixed(3)} ms/read`, `emu cpu ${((emuCpu() - e0) / partIds.length).toFixed(3)} ms/read`);
    }
  };
  const web = await createServiceClient({ serviceHost: s.emu.url, credentials, maxConnections: 64 });
  const h2 = await createServiceClient({ serviceHost: s.emu.url, credentials, transport: 'grpc' });
  const sdk = await loadSdk();
  const viam = await sdk.createViamClient({ serviceHost: s.emu.url, credentials });
  await measure('grpc-web', (id) => web.appClient.getMachinePart(id));
  if (process.env.PROF) {
    const { Session } = await import('node:inspector/promises');
    const ins = new Session(); ins.connect(); await ins.post('Profiler.enable'); await ins.post('Profiler.setSamplingInterval', { interval: 200 }); await ins.post('Profiler.start');
    await measure('grpc-web', (id) => web.appClient.getMachinePart(id));
    const { profile } = await ins.post('Profiler.stop');
    require('node:fs').writeFileSync(process.env.PROF, JSON.stringify(profile));
  } else {
  await measure('sdk', (id) => viam.appClient.getRobotPart(id));
  await measure('grpc h2', (id) => h2.appClient.getMachinePart(id));
  await measure('sdk', (id) => viam.appClient.getRobotPart(id));
  }
  await web.close(); await h2.close();
  await s.close();
  process.exit(0);
}
void main();
