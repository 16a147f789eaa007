import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// The instrumentation only patches `node:http` for modules loaded after its hook, as the services run
// (`node --import @app/telemetry/register`): so the requests are made in such a process, and the
// receiving server reports the header lines it got.
const SCRIPT = `
import { createServer, request, Agent } from 'node:http';
import { untraced, withSpan } from '@app/telemetry';

const seen = [];
const server = createServer((req, res) => { seen.push(req.rawHeaders); res.end(); });
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address();
const send = (options) => new Promise((resolve, reject) => {
  const req = request({ host: '127.0.0.1', port, path: '/', ...options }, (res) => { res.resume(); res.on('end', resolve); });
  req.on('error', reject);
  req.end();
});
await withSpan('test', {}, async () => {
  await send({ headers: { 'X-Own': 'call' } });
  await send(untraced({ headers: ['Host', 'target.example', 'X-Page', 'one', 'X-Page', 'two'] }));
  await send({ agent: untraced(new Agent()), headers: { 'X-Relayed': 'yes' } });
});
server.close();
process.stdout.write(JSON.stringify(seen));
`;

const telemetryDir = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('untraced', () => {
  describe('When a process with the instrumentation hook makes requests inside a trace', () => {
    it("should add trace context to the service's own calls only, and pass marked requests on untouched", async () => {
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', '@app/telemetry/register', '--input-type=module', '-e', SCRIPT], {
        cwd: telemetryDir,
        env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' },
      });
      const [own, marked, viaAgent] = JSON.parse(stdout) as string[][];
      const names = (raw: string[]) => raw.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());

      expect(names(own!)).toContain('traceparent');
      expect(marked!.slice(0, 6)).toEqual(['Host', 'target.example', 'X-Page', 'one', 'X-Page', 'two']);
      for (const raw of [marked!, viaAgent!]) {
        expect(names(raw).filter((n) => ['traceparent', 'tracestate', 'baggage'].includes(n) || /^\d+$/.test(n))).toEqual([]);
      }
      expect(names(viaAgent!)).toContain('x-relayed');
    });
  });
});
