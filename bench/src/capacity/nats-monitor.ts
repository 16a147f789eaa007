/** What the NATS server counted so far: client messages in and out, JetStream API calls, and each stream's last sequence. */
export interface NatsCounts {
  inMsgs: number;
  outMsgs: number;
  apiCalls: number;
  /** Last sequence of each stream (KV buckets are KV_<bucket>, object stores OBJ_<store>). */
  streams: Record<string, number>;
}

export async function natsCounts(monitorUrl: string): Promise<NatsCounts> {
  const varz = (await (await fetch(`${monitorUrl}/varz`)).json()) as { in_msgs: number; out_msgs: number };
  const jsz = (await (await fetch(`${monitorUrl}/jsz?streams=true`)).json()) as {
    api: { total: number };
    account_details?: { stream_detail?: { name: string; state: { last_seq: number } }[] }[];
  };
  const streams: Record<string, number> = {};
  for (const a of jsz.account_details ?? []) for (const s of a.stream_detail ?? []) streams[s.name] = s.state.last_seq;
  return { inMsgs: varz.in_msgs, outMsgs: varz.out_msgs, apiCalls: jsz.api.total, streams };
}

/** Per operation: the counts' difference divided by how many operations ran between them. */
export function perOperation(before: NatsCounts, after: NatsCounts, operations: number) {
  const per = (n: number) => Number((n / operations).toFixed(2));
  const writes = Object.fromEntries(
    Object.keys(after.streams)
      .map((s) => [s, per(after.streams[s]! - (before.streams[s] ?? 0))] as const)
      .filter(([, n]) => n > 0),
  );
  return {
    inMsgs: per(after.inMsgs - before.inMsgs),
    outMsgs: per(after.outMsgs - before.outMsgs),
    apiCalls: per(after.apiCalls - before.apiCalls),
    streamWrites: writes,
  };
}
