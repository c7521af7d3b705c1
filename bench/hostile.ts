/**
 * Hostile requests against the benchmark's emulator: how long a gzip bomb (512 MiB of zeros
 * in about 500 KB, with valid credentials) and an oversized plain message take to be refused,
 * and the emulator's peak resident memory afterwards (targets: under 1 s, under 300 MB).
 */
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import { spawnEmulator } from './emulator';
import { r3 } from './stats';

function peakRssMb(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Math.round(Number(kb ?? 0) / 1024);
}

async function refusalSeconds(url: string, headers: Record<string, string>, body: Buffer): Promise<{ seconds: number; status: number }> {
  const start = process.hrtime.bigint();
  const res = await fetch(`${url}/viam.app.v1.AppService/ListOrganizations`, { method: 'POST', headers, body });
  await res.arrayBuffer();
  return { seconds: r3(Number(process.hrtime.bigint() - start) / 1e9), status: res.status };
}

export async function measureHostile(): Promise<Record<string, unknown>> {
  const emu = await spawnEmulator();
  const { apiKeyId, apiKey } = emu.credentials;
  try {
    const token = await fetch(`${emu.url}/proto.rpc.v1.AuthService/Authenticate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'connect-protocol-version': '1' },
      body: JSON.stringify({ entity: apiKeyId, credentials: { type: 'api-key', payload: apiKey } }),
    }).then(async (r) => ((await r.json()) as { accessToken: string }).accessToken);
    const base = { 'content-type': 'application/proto', 'connect-protocol-version': '1', authorization: `Bearer ${token}` };
    const bomb = zlib.gzipSync(Buffer.alloc(512 * 1024 * 1024), { level: 9 });
    const rssBefore = peakRssMb(emu.pid);
    const gzipBomb = await refusalSeconds(emu.url, { ...base, 'content-encoding': 'gzip' }, bomb);
    const oversized = await refusalSeconds(emu.url, base, Buffer.alloc(5 * 1024 * 1024, 8));
    const wrongKey = await refusalSeconds(emu.url, { ...base, authorization: 'Bearer wrong', 'content-encoding': 'gzip' }, bomb);
    return {
      gzip_bomb: gzipBomb,
      oversized,
      wrong_key_bomb: wrongKey,
      peak_rss_mb_before: rssBefore,
      peak_rss_mb_after: peakRssMb(emu.pid),
    };
  } finally {
    await emu.stop();
  }
}
