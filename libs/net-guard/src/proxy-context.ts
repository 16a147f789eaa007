import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { resolveTarget } from './host-policy.js';
import type { LookupFn } from './lookup.js';
import { dialPinned } from './pinned-dial.js';
import type { ProxyTarget } from './proxy-target.js';

export interface BlockedRequest {
  host: string;
  port: number;
  /** Short machine-readable cause, for logs: localhost_name, non_public_address, invalid_address, scheme_not_allowed. */
  reason: string;
}

export interface ProxyPolicyOptions {
  allowPrivate: boolean;
  lookup?: LookupFn | undefined;
  onBlocked?: ((info: BlockedRequest) => void) | undefined;
  connectTimeoutMs: number;
  idleTimeoutMs: number;
}

/** Client sockets from a CONNECT are typed as Duplex but are net.Sockets. */
type TrackedSocket = Duplex & Partial<Pick<Socket, 'setTimeout'>>;

export type Admission = { ok: true; addresses: string[] } | { ok: false; status: 403 | 502 };

/** What the request and tunnel handlers share: the policy decision, pinned dialing, counters, open sockets. */
export interface ProxyContext {
  /** Resolves the target once and applies the address policy; the addresses are the only ones to dial. */
  admit(target: ProxyTarget): Promise<Admission>;
  /** Refuses a target for a reason found before resolution (e.g. an unsupported scheme). */
  refuse(target: ProxyTarget, reason: string): Admission;
  /** Connects to a pinned address; the socket is tracked, idles out, and already has an error listener. */
  dial(addresses: readonly string[], port: number): Promise<Socket>;
  /** Tracks a socket so close() can end it, and gives it the idle timeout. */
  track(socket: TrackedSocket, idle?: boolean): void;
  destroyAll(): void;
  stats(): { allowed: number; blocked: number };
}

export function createProxyContext(opts: ProxyPolicyOptions): ProxyContext {
  const sockets = new Set<Duplex>();
  const counters = { allowed: 0, blocked: 0 };

  const refuse = (target: ProxyTarget, reason: string): Admission => {
    counters.blocked += 1;
    try {
      opts.onBlocked?.({ host: target.hostname, port: target.port, reason });
    } catch {
      // a logging hook must never break the proxy
    }
    return { ok: false, status: 403 };
  };

  const track: ProxyContext['track'] = (socket, idle = false) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    if (idle) socket.setTimeout?.(opts.idleTimeoutMs, () => socket.destroy());
  };

  return {
    refuse,
    track,
    async admit(target) {
      const decision = await resolveTarget(target.hostname, { allowPrivate: opts.allowPrivate, lookup: opts.lookup });
      if (decision.kind === 'unresolved') return { ok: false, status: 502 };
      if (decision.kind === 'blocked') return refuse(target, decision.reason);
      counters.allowed += 1;
      return { ok: true, addresses: decision.addresses };
    },
    async dial(addresses, port) {
      const socket = await dialPinned(addresses, port, { connectTimeoutMs: opts.connectTimeoutMs });
      socket.on('error', () => socket.destroy());
      track(socket, true);
      return socket;
    },
    destroyAll() {
      for (const socket of sockets) socket.destroy();
    },
    stats: () => ({ ...counters }),
  };
}
