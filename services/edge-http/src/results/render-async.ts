import { checkRenderTargets } from '@app/net-guard';
import type { RenderParams } from '@app/proto/render';
import { RENDER_PRODUCERS } from '@app/render-contracts';
import { formatOf, renderBudgetMs, type Operation } from '@app/render-params';
import type { JobPublisher, RenderStatusStore, WebhookGuard } from './ports.js';
import type { Clock, TargetGuard } from '../application/ports.js';
import type { RenderCache } from './render-cache.js';
import type { RenderRecord } from './render-record.js';
import { DEFAULT_CACHE_TTL_SECONDS, cacheKeyOf } from './cache-key.js';
import { newFileName } from './render-cached.js';

/** Without caching, an async result file is kept this long (decisions: Async and webhooks). */
export const ASYNC_FILE_TTL_MS = 24 * 60 * 60 * 1000;

export interface AsyncAccepted {
  id: string;
  status: 'queued' | 'succeeded';
  createdMs: number;
  cache?: 'HIT' | 'MISS';
}

/**
 * Accepts an asynchronous render: checks the targets, records it as queued and publishes the job,
 * which carries the quota reservation to its settlement (auth-quota reads the job's outcome).
 * A cache hit finishes at once (no quota is reserved: hits cost none) and is announced as the edge's
 * `cache-hit` event, which carries a finished render's payload, so its webhook goes out the same way.
 */
export function renderAsync(deps: {
  jobs: JobPublisher;
  statuses: RenderStatusStore;
  cache: RenderCache;
  guard: TargetGuard;
  webhookGuard: WebhookGuard;
  clock: Clock;
  newId: () => string;
  newFileName?: () => string;
  /** How long an async job may wait in the queue before its render starts. */
  queueWaitMs: number;
}) {
  const fileName = deps.newFileName ?? newFileName;

  return async (input: {
    accountId: string;
    operation: Operation;
    params: RenderParams;
    /** Reserves the render's unit of quota (unless admission did) and returns the reservation the job carries. */
    reserve: () => Promise<string | undefined>;
    /** Absolute prefix of file URLs, e.g. https://api.example.com/v1/files/ */
    filesBaseUrl: string;
  }): Promise<AsyncAccepted> => {
    const { params } = input;
    await checkRenderTargets(params, (url, parameter) => deps.guard.check(url, parameter));
    if (params.webhook_url) await deps.webhookGuard.check(params.webhook_url);
    const id = deps.newId();
    const nowMs = deps.clock.now().getTime();
    const timeoutMs = renderBudgetMs(input.operation, params);
    const record: RenderRecord = {
      id,
      accountId: input.accountId,
      operation: input.operation,
      format: formatOf(input.operation, params),
      status: 'queued',
      createdMs: nowMs,
      deadlineMs: nowMs + deps.queueWaitMs + timeoutMs,
      webhookUrl: params.webhook_url,
      webhookSigned: params.webhook_signed,
    };
    const cacheKey = params.cache ? cacheKeyOf(input.accountId, input.operation, params) : undefined;

    if (cacheKey) {
      const hit = await deps.cache.find(input.accountId, cacheKey, nowMs);
      if (hit) {
        await deps.statuses.create({
          ...record,
          status: 'succeeded',
          finishedMs: nowMs,
          file: hit.objectName,
          expiresMs: hit.expiresUnixMs,
          size: hit.size,
        });
        if (params.webhook_url) {
          await deps.jobs.announce({
            job_id: id,
            account_id: input.accountId,
            operation: input.operation,
            status: 'succeeded',
            result: {
              object_name: hit.objectName,
              content_type: hit.contentType,
              extension: hit.extension,
              size: hit.size,
              headers: hit.headers,
              expires_unix_ms: hit.expiresUnixMs,
            },
            started_unix_ms: nowMs,
            finished_unix_ms: nowMs,
            origin: 'api',
            producer: RENDER_PRODUCERS.edgeCache,
            async: true,
            webhook_url: params.webhook_url,
            webhook_signed: params.webhook_signed,
            created_unix_ms: nowMs,
            format: record.format,
            placement: { object_name: hit.objectName, ttl_ms: Math.max(0, hit.expiresUnixMs - nowMs), cache_key: cacheKey },
            files_base_url: input.filesBaseUrl,
          }, 'cache-hit');
        }
        return { id, status: 'succeeded', createdMs: nowMs, cache: 'HIT' };
      }
    }

    const reservationId = await input.reserve();
    await deps.statuses.create({ ...record, reservationId });
    try {
      await deps.jobs.submit({
        job_id: id,
        account_id: input.accountId,
        operation: input.operation,
        params,
        deadline_unix_ms: record.deadlineMs,
        created_unix_ms: nowMs,
        origin: 'api',
        reservation_id: reservationId,
        placement: {
          object_name: fileName(),
          ttl_ms: cacheKey ? (params.cache_ttl ?? DEFAULT_CACHE_TTL_SECONDS) * 1000 : ASYNC_FILE_TTL_MS,
          cache_key: cacheKey,
        },
        files_base_url: input.filesBaseUrl,
      });
    } catch (err) {
      await deps.statuses.remove(id).catch(() => undefined);
      throw err;
    }
    return { id, status: 'queued', createdMs: nowMs, ...(cacheKey ? { cache: 'MISS' as const } : {}) };
  };
}

export type RenderAsync = ReturnType<typeof renderAsync>;
