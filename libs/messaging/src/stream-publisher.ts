import { createInbox, headers as newHeaders, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';

/** What JetStream answers a publish with once the message is stored (or recognised as a duplicate). */
export interface StreamAck {
  stream: string;
  seq: number;
  duplicate: boolean;
}

export interface StreamPublish {
  /** Resolves once the stream holds the message; `msgID` is set on the given headers (they are the message's). */
  publish(subject: string, data: Uint8Array, opts?: { msgID?: string; headers?: MsgHdrs }): Promise<StreamAck>;
}

export interface StreamPublisher extends StreamPublish {
  /** Publishes waiting for their acknowledgement. */
  pending(): number;
  /** Stops listening for acknowledgements; those still awaited fail. */
  close(): void;
}

export class StreamPublishError extends Error {
  override name = 'StreamPublishError';
}

interface Waiter {
  resolve: (ack: StreamAck) => void;
  reject: (err: Error) => void;
  subject: string;
  deadline: number;
}

interface Outgoing {
  token: string;
  subject: string;
  data: Uint8Array;
  headers: MsgHdrs | undefined;
}

const decoder = new TextDecoder();

/**
 * JetStream publishes whose acknowledgements come back on one subscription of this publisher's own,
 * matched by a token in the reply subject, with one sweep for those that time out.
 *
 * The same protocol as `js.publish` (a core publish with a reply subject; the stream answers with its
 * acknowledgement or an error; `msgID` deduplicates within the stream's window), without its per-publish
 * costs: a timer, a deferred and an error object for every request, a response parsed through the
 * request multiplexer, and a write to the socket each. A burst of 10,000 render jobs costs a little over
 * half the CPU it costs through `js.publish`. An acknowledgement lost to a reconnection is a timeout, as
 * with `js.publish`: the message may have been stored.
 */
export function streamPublisher(nc: NatsConnection, opts: { timeoutMs?: number } = {}): StreamPublisher {
  const timeoutMs = opts.timeoutMs ?? 5_000;
  const prefix = createInbox();
  // Insertion order is deadline order (one timeout for all): the sweep stops at the first one still due.
  const awaited = new Map<string, Waiter>();
  let next = 0;
  let closed = false;

  const settle = (token: string, outcome: StreamAck | Error) => {
    const waiter = awaited.get(token);
    if (!waiter) return;
    awaited.delete(token);
    if (outcome instanceof Error) waiter.reject(outcome);
    else waiter.resolve(outcome);
  };

  const sub = nc.subscribe(`${prefix}.*`, {
    callback: (err, msg) => {
      if (err) return;
      const token = msg.subject.slice(prefix.length + 1);
      if (msg.headers?.hasError) {
        const { code, description } = msg.headers;
        settle(token, new StreamPublishError(code === 503 ? `no stream stores ${awaited.get(token)?.subject}` : `publish refused: ${code} ${description}`));
        return;
      }
      try {
        const ack = JSON.parse(decoder.decode(msg.data)) as Partial<StreamAck> & { error?: { code?: number; description?: string } };
        if (ack.error) settle(token, new StreamPublishError(`publish refused: ${ack.error.code ?? ''} ${ack.error.description ?? ''}`.trim()));
        else settle(token, { stream: ack.stream ?? '', seq: ack.seq ?? 0, duplicate: ack.duplicate === true });
      } catch {
        settle(token, new StreamPublishError('the stream answered the publish with something other than an acknowledgement'));
      }
    },
  });

  // Publishes go out together once per turn of the event loop: those started by one batch of
  // acknowledgements leave in one write to the socket, not one write each.
  let outbox: Outgoing[] = [];
  const send = () => {
    const batch = outbox;
    outbox = [];
    for (const m of batch) {
      if (!awaited.has(m.token)) continue; // closed meanwhile
      try {
        nc.publish(m.subject, m.data, { reply: `${prefix}.${m.token}`, ...(m.headers ? { headers: m.headers } : {}) });
      } catch (err) {
        settle(m.token, err instanceof Error ? err : new StreamPublishError(String(err)));
      }
    }
  };

  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [token, waiter] of awaited) {
      if (waiter.deadline > now) break;
      settle(token, new StreamPublishError(`no acknowledgement within ${timeoutMs} ms`));
    }
  }, Math.max(10, Math.min(1_000, timeoutMs / 4)));
  sweep.unref();

  return {
    publish(subject, data, o = {}) {
      if (closed || nc.isClosed()) return Promise.reject(new StreamPublishError('the publisher is closed'));
      const token = (next++).toString(36);
      let hdrs = o.headers;
      if (o.msgID) {
        hdrs ??= newHeaders();
        hdrs.set('Nats-Msg-Id', o.msgID);
      }
      return new Promise<StreamAck>((resolve, reject) => {
        awaited.set(token, { resolve, reject, subject, deadline: Date.now() + timeoutMs });
        outbox.push({ token, subject, data, headers: hdrs });
        if (outbox.length === 1) setImmediate(send);
      });
    },
    pending: () => awaited.size,
    close() {
      closed = true;
      clearInterval(sweep);
      sub.unsubscribe();
      for (const token of [...awaited.keys()]) settle(token, new StreamPublishError('the publisher is closed'));
    },
  };
}
