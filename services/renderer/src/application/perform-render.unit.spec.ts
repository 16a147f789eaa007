import { describe, expect, it, vi } from 'vitest';
import { decodeResultMeta } from '@app/render-contracts';
import { RenderJob, RenderParams, type RenderFinished, type RenderStarted } from '@app/proto/render';
import { performRender } from './perform-render.js';
import { AppError } from '@app/errors';
import type { JobCaller, JobInputs, Renderer, ResultHandOver, StartAnswer, StartGate } from './ports.js';

const NOW = 1_800_000_000_000;

function setup(renderer?: Renderer, inputs?: JobInputs, startGate?: StartGate, handOver?: ResultHandOver) {
  const puts: { name: string; body: Uint8Array; metadata?: Record<string, string> }[] = [];
  const finished: RenderFinished[] = [];
  const told: RenderFinished[] = [];
  /** The caller each finished event was also told to (its caller subject, or none). */
  const callers: (string | undefined)[] = [];
  const started: RenderStarted[] = [];
  const outcomes: string[] = [];
  const render = vi.fn<Renderer['render']>(async () => ({ body: Buffer.from([1, 2, 3]), contentType: 'image/png', extension: 'png', headers: { 'x-service-metadata-title': 'T' } }));
  const perform = performRender({
    renderer: renderer ?? { render },
    results: { put: async (name, body, metadata) => void puts.push({ name, body, metadata }) },
    finished: { publish: async (e, caller) => void (finished.push(e), callers.push(caller?.caller_subject)), tellTaken: (e) => void told.push(e), started: async (e) => void started.push(e) },
    guard: { check: async () => undefined },
    clock: { now: () => new Date(NOW) },
    rendererId: 'renderer-1',
    inputs,
    startGate,
    handOver,
    observe: (operation, outcome) => void outcomes.push(`${operation}:${outcome}`),
  });
  return { perform, puts, finished, callers, told, started, render, outcomes };
}

const job = (over: Omit<Partial<RenderJob>, 'params'> & { params?: Partial<RenderParams> } = {}) =>
  RenderJob.fromPartial({
    job_id: 'job-1',
    account_id: 'acc',
    operation: 'screenshot',
    deadline_unix_ms: NOW + 5_000,
    created_unix_ms: NOW - 10,
    origin: 'api',
    ...over,
    params: RenderParams.fromPartial(over.params ?? { html: '<p>x</p>', format: 'png', timeout: 5 }),
  });

describe('performRender', () => {
  describe('When a synchronous job succeeds', () => {
    it('should store a transient result named by the job, with its expiry and owner', async () => {
      const { perform, puts, finished, started } = setup();
      await perform(job(), { isLast: false });
      expect(puts[0]!.name).toBe('job-1');
      expect(decodeResultMeta(puts[0]!.metadata)).toMatchObject({ accountId: 'acc', kind: 'transient', contentType: 'image/png', expiresUnixMs: NOW + 3_600_000 });
      expect(finished[0]).toMatchObject({ status: 'succeeded', producer: 'renderer', renderer_id: 'renderer-1', async: false, format: 'png', result: { object_name: 'job-1', expires_unix_ms: NOW + 3_600_000 } });
      expect(started).toHaveLength(0);
    });
  });

  describe('When an async job with a webhook and a placement succeeds', () => {
    it('should announce start, keep the file under its placement, and carry everything the consumers need', async () => {
      const { perform, puts, finished, started } = setup();
      await perform(
        job({
          params: { url: 'https://example.com/', format: 'png', timeout: 5, async: true, webhook_url: 'https://h.example/x', webhook_signed: false, attachment_name: 'a' },
          deadline_unix_ms: NOW + 65_000,
          reservation_id: 'res-1',
          placement: { object_name: 'N'.repeat(43), ttl_ms: 86_400_000, cache_key: 'k' },
          files_base_url: 'https://api.example/v1/files/',
        }),
        { isLast: false },
      );
      expect(started).toEqual([{ job_id: 'job-1', account_id: 'acc', started_unix_ms: NOW, renderer_id: 'renderer-1' }]);
      expect(puts[0]!.name).toBe('N'.repeat(43));
      expect(decodeResultMeta(puts[0]!.metadata)).toMatchObject({ kind: 'file', expiresUnixMs: NOW + 86_400_000, attachmentName: 'a', headers: { 'x-service-metadata-title': 'T' } });
      expect(finished[0]).toMatchObject({
        status: 'succeeded',
        async: true,
        reservation_id: 'res-1',
        webhook_url: 'https://h.example/x',
        webhook_signed: false,
        created_unix_ms: NOW - 10,
        placement: { cache_key: 'k' },
        files_base_url: 'https://api.example/v1/files/',
        result: { object_name: 'N'.repeat(43), size: 3, expires_unix_ms: NOW + 86_400_000 },
      });
    });
  });

  describe('When an async job has a long queue allowance', () => {
    it('should still render within its own timeout', async () => {
      const { perform, render } = setup();
      await perform(job({ params: { html: 'x', timeout: 5, async: true }, deadline_unix_ms: NOW + 65_000 }), { isLast: false });
      expect(render.mock.calls[0]![2]).toBe(5_000);
    });
  });

  describe('When the render fails', () => {
    it('should announce the failure with the webhook fields (the receiver hears about it too)', async () => {
      const { perform, finished } = setup({ render: async () => Promise.reject(new Error('boom')) });
      await perform(job({ params: { html: 'x', async: true, webhook_url: 'https://h.example/x' }, reservation_id: 'r' }), { isLast: true });
      expect(finished[0]).toMatchObject({ status: 'failed', error: { code: 'render_failed' }, webhook_url: 'https://h.example/x', reservation_id: 'r', async: true });
    });
  });

  // The error table (libs/errors) decides how a failed job's message is settled.
  describe.each<[string, Error, { kind: string; delayMs?: number }, string | undefined]>([
    ['the pool is full (renderer_unavailable)', new AppError('renderer_unavailable', 'busy'), { kind: 'nak', delayMs: 250 }, undefined],
    ['the bus is down (service_unavailable, Retry-After 2 s)', new AppError('service_unavailable', 'down', { retryAfterSeconds: 2 }), { kind: 'nak', delayMs: 2_000 }, undefined],
    ['a fault (not an AppError)', new Error('browser crashed'), { kind: 'nak', delayMs: 500 }, undefined],
    ['the render timed out (render_timeout)', new AppError('render_timeout', 'late'), { kind: 'ack' }, 'render_timeout'],
    ['the target is refused (target_not_allowed)', new AppError('target_not_allowed', 'no'), { kind: 'term' }, 'target_not_allowed'],
  ])('When the render fails because %s, deliveries remaining', (_label, error, disposition, announced) => {
    it(`should ${announced ? `announce ${announced} and settle it as the table says` : 'have it delivered again, announcing nothing'}`, async () => {
      const { perform, finished } = setup({ render: async () => Promise.reject(error) });
      expect(await perform(job(), { isLast: false })).toEqual(disposition);
      expect(finished.map((f) => f.error?.code)).toEqual(announced ? [announced] : []);
    });
  });

  describe('When a passing failure (service_unavailable) reaches the last delivery', () => {
    it('should announce it and be done', async () => {
      const { perform, finished } = setup({ render: async () => Promise.reject(new AppError('service_unavailable', 'down')) });
      expect(await perform(job(), { isLast: true })).toEqual({ kind: 'ack' });
      expect(finished[0]).toMatchObject({ status: 'failed', error: { code: 'service_unavailable' } });
    });
  });

  describe('When the parameters travelled by reference', () => {
    /** The render-inputs store as a map: what resolve reads and release removes. */
    const storedInputs = (stored: Record<string, RenderParams>) => {
      const map = new Map(Object.entries(stored));
      const inputs: JobInputs = {
        resolve: async (j) => {
          if (!j.params_ref) return j;
          const params = map.get(j.params_ref);
          if (!params) throw new AppError('render_failed', 'The render parameters are no longer available.');
          return { ...j, params };
        },
        release: async (j) => void (j.params_ref && map.delete(j.params_ref)),
      };
      return { map, inputs };
    };
    const byReference = () => ({ ...job(), params: undefined, params_ref: 'job-1' });
    const big = RenderParams.fromPartial({ html: `<p>${'x'.repeat(2_000_000)}</p>`, format: 'png', timeout: 5 });

    it('should render the stored parameters and remove them once done', async () => {
      const { map, inputs } = storedInputs({ 'job-1': big });
      const { perform, render, finished } = setup(undefined, inputs);
      expect(await perform(byReference(), { isLast: false })).toEqual({ kind: 'ack' });
      expect(render.mock.calls[0]![1].html).toBe(big.html);
      expect(finished[0]).toMatchObject({ status: 'succeeded' });
      expect(map.size).toBe(0);
    });

    it('should keep them while the job is retried', async () => {
      const { map, inputs } = storedInputs({ 'job-1': big });
      const { perform } = setup({ render: async () => Promise.reject(new Error('browser crashed')) }, inputs);
      expect(await perform(byReference(), { isLast: false })).toMatchObject({ kind: 'nak' });
      expect(map.size).toBe(1);
    });

    it('should fail the render, without rendering, when they are gone', async () => {
      const { inputs } = storedInputs({});
      const { perform, render, finished } = setup(undefined, inputs);
      expect(await perform(byReference(), { isLast: false })).toEqual({ kind: 'ack' });
      expect(render).not.toHaveBeenCalled();
      expect(finished[0]).toMatchObject({ status: 'failed', error: { code: 'render_failed' } });
    });
  });

  describe.each<[StartAnswer, string, string]>([
    ['go', 'ack', 'screenshot:succeeded'],
    ['shed', 'ack', 'screenshot:shed'],
    ['unanswered', 'nak', 'screenshot:retried'],
  ])('When the waiting caller answers %s to the start request', (answer, kind, outcome) => {
    it(`should ${answer === 'go' ? 'render it' : 'not render it nor announce anything'}`, async () => {
      const asked: string[] = [];
      const { perform, render, finished, puts, outcomes } = setup(undefined, undefined, { confirm: async (j) => (asked.push(`${j.job_id} at ${j.caller_subject}`), answer) });
      const disposition = await perform(job({ confirm_start: true, caller_subject: 'renderer.call.edge1' }), { isLast: false });
      expect(asked).toEqual(['job-1 at renderer.call.edge1']);
      expect(disposition.kind).toBe(kind);
      expect(render).toHaveBeenCalledTimes(answer === 'go' ? 1 : 0);
      expect(finished).toHaveLength(answer === 'go' ? 1 : 0);
      expect(puts).toHaveLength(answer === 'go' ? 1 : 0);
      expect(outcomes).toEqual([outcome]);
    });
  });

  describe('When a job does not ask for a start confirmation (async renders, task runs)', () => {
    it('should start it without asking', async () => {
      const asked: string[] = [];
      const { perform, render } = setup(undefined, undefined, { confirm: async (j) => (asked.push(j.job_id), 'shed') });
      await perform(job(), { isLast: false });
      expect(asked).toEqual([]);
      expect(render).toHaveBeenCalledTimes(1);
    });
  });

  describe('When a caller waits for the job (confirm_start) and takes the result handed over', () => {
    it('should store nothing, neither the result nor its event, and tell the success without an object', async () => {
      const offered: { caller: JobCaller; event: RenderFinished; body: Uint8Array }[] = [];
      const takes = { offer: async (caller: JobCaller, event: RenderFinished, body: Uint8Array) => (offered.push({ caller, event, body }), true) };
      const { perform, puts, finished, told, outcomes } = setup(undefined, undefined, { confirm: async () => 'go' }, takes);
      expect(await perform(job({ confirm_start: true, caller_subject: 'renderer.call.edge1' }), { isLast: false })).toEqual({ kind: 'ack' });
      expect(offered).toHaveLength(1);
      expect(offered[0]!.caller).toMatchObject({ job_id: 'job-1', caller_subject: 'renderer.call.edge1' });
      expect([...offered[0]!.body]).toEqual([1, 2, 3]);
      expect(offered[0]!.event).toMatchObject({ job_id: 'job-1', status: 'succeeded', result: { object_name: '', content_type: 'image/png', extension: 'png', size: 3, headers: { 'x-service-metadata-title': 'T' } } });
      expect(puts).toEqual([]);
      expect(finished).toEqual([]);
      expect(told).toEqual([offered[0]!.event]);
      expect(outcomes).toEqual(['screenshot:succeeded']);
    });
  });

  describe('When the waiting caller does not take the result (gone, too large, no answer)', () => {
    it('should store it and announce it with its object, as without a hand-over, telling the caller where it listens', async () => {
      const refuses = { offer: vi.fn(async () => false) };
      const { perform, puts, finished, callers } = setup(undefined, undefined, { confirm: async () => 'go' }, refuses);
      await perform(job({ confirm_start: true, caller_subject: 'renderer.call.edge1' }), { isLast: false });
      expect(refuses.offer).toHaveBeenCalledTimes(1);
      expect(puts.map((p) => p.name)).toEqual(['job-1']);
      expect(finished).toHaveLength(1);
      expect(finished[0]).toMatchObject({ status: 'succeeded', result: { object_name: 'job-1', expires_unix_ms: NOW + 3_600_000 } });
      expect(callers).toEqual(['renderer.call.edge1']);
    });
  });

  describe.each<[string, Partial<RenderJob>]>([
    ['no caller waits for it (an async render, a task run)', {}],
    ['its result is to be kept as a file (a cache fill)', { confirm_start: true, placement: { object_name: 'N'.repeat(43), ttl_ms: 60_000, cache_key: 'k' } }],
  ])('When %s', (_, over) => {
    it('should not offer the result: it is stored', async () => {
      const takes = { offer: vi.fn(async () => true) };
      const { perform, puts } = setup(undefined, undefined, { confirm: async () => 'go' }, takes);
      await perform(job(over), { isLast: false });
      expect(takes.offer).not.toHaveBeenCalled();
      expect(puts).toHaveLength(1);
    });
  });
});
