import { readFileSync } from 'node:fs';
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
 * A TCP port free on 127.0.0.1 right now, below the ephemeral range, and never handed out twice by this
 * process. The search starts at a random port, so stacks started at once by other processes rarely try
 * the same ones; when nothing is free there, any free port.
 */
export function freePort(): Promise<number> {
  if (BELOW_EPHEMERAL - LOWEST < 1_000) return getPort({ host: '127.0.0.1', reserve: true });
  return getPort({ host: '127.0.0.1', reserve: true, port: fromRandomStart(LOWEST, BELOW_EPHEMERAL) });
}

/** Every port from `lowest` to `highest`, starting at a random one and wrapping around. */
function* fromRandomStart(lowest: number, highest: number): Generator<number> {
  const start = lowest + Math.floor(Math.random() * (highest - lowest + 1));
  for (let port = start; port <= highest; port++) yield port;
  for (let port = lowest; port < start; port++) yield port;
}
