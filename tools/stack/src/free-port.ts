import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import getPort from 'get-port';

/**
 * The first port of the kernel's ephemeral range: the local ports outgoing connections take. A port
 * handed out from that range can be taken by any connection before the service meant to listen on it
 * binds it (EADDRINUSE), so ports are handed out below it.
 */
function ephemeralRangeStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}

const LOWEST = 10_000;
const BELOW_EPHEMERAL = ephemeralRangeStart() - 1;

/**
 * A TCP port free on 127.0.0.1 right now, below the ephemeral range, never handed out twice by this
 * process, and claimed against every other process that asks here (a file per port under the temp dir,
 * holding the claimant's pid): a port one launcher chose is not chosen by another before its service
 * binds it, which takes seconds (seen: two test stacks started at once, one scheduler refused with
 * EADDRINUSE for as long as the other stack ran). The search starts at a random port; when nothing is
 * free there, any free port.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = await anyFreePort();
    if (claimPort(port)) return port;
  }
  return anyFreePort();
}

const anyFreePort = (): Promise<number> =>
  BELOW_EPHEMERAL - LOWEST < 1_000
    ? getPort({ host: '127.0.0.1', reserve: true })
    : getPort({ host: '127.0.0.1', reserve: true, port: fromRandomStart(LOWEST, BELOW_EPHEMERAL) });

const CLAIMS = join(tmpdir(), 'render-stack-ports');

/** Claims the port for this process unless a live other process has; a dead claimant's claim is taken over. */
export function claimPort(port: number): boolean {
  const file = join(CLAIMS, String(port));
  try {
    mkdirSync(CLAIMS, { recursive: true });
    writeFileSync(file, String(process.pid), { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return true; // no claims here: get-port's check alone
  }
  const owner = Number(readFileSync(file, 'utf8'));
  if (owner && owner !== process.pid && isAlive(owner)) return false;
  writeFileSync(file, String(process.pid));
  return true;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Every port from `lowest` to `highest`, starting at a random one and wrapping around. */
function* fromRandomStart(lowest: number, highest: number): Generator<number> {
  const start = lowest + Math.floor(Math.random() * (highest - lowest + 1));
  for (let port = start; port <= highest; port++) yield port;
  for (let port = lowest; port < start; port++) yield port;
}
