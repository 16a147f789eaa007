import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
}

interface OtlpJson {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
    scopeSpans?: { spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number }[] }[];
  }[];
}

/**
 * A minimal OTLP/HTTP (JSON) trace receiver: the services export to it as they would to a collector,
 * and tests read the spans back.
 */
export async function startOtlpReceiver(opts: { listenHost?: string } = {}) {
  const spans: ReceivedSpan[] = [];
  /** Every export as received (span attributes and events included), for tests that search them. */
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const text = Buffer.concat(chunks).toString('utf8');
        bodies.push(text);
        const body = JSON.parse(text) as OtlpJson;
        for (const rs of body.resourceSpans ?? []) {
          const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? 'unknown';
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({ service, traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || undefined, name: s.name, kind: s.kind });
            }
          }
        }
      } catch {
        // not JSON: ignore
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, opts.listenHost ?? '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    byTrace: (traceId: string) => spans.filter((s) => s.traceId === traceId),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
