import type { RenderFinished } from '@app/proto/render';

export type RenderState = 'queued' | 'running' | 'succeeded' | 'failed';

/** An asynchronous render as the status API shows it (times in unix milliseconds). */
export interface RenderRecord {
  id: string;
  accountId: string;
  operation: string;
  format: string;
  status: RenderState;
  createdMs: number;
  /** Past this (plus a grace period) a render still queued or running is failed by the watchdog. */
  deadlineMs: number;
  reservationId?: string | undefined;
  /** Kept so a render the watchdog fails still gets its webhook. */
  webhookUrl?: string | undefined;
  webhookSigned?: boolean | undefined;
  startedMs?: number | undefined;
  finishedMs?: number | undefined;
  /** Object name of the result file. */
  file?: string | undefined;
  expiresMs?: number | undefined;
  size?: number | undefined;
  error?: { code: string; message: string } | undefined;
}

const TERMINAL: ReadonlySet<RenderState> = new Set(['succeeded', 'failed']);

export const isTerminal = (r: RenderRecord) => TERMINAL.has(r.status);

/** A renderer took the job. Never moves a finished render back. */
export function recordStarted(r: RenderRecord, startedMs: number): RenderRecord | undefined {
  if (r.status !== 'queued') return undefined;
  return { ...r, status: 'running', startedMs };
}

/** The render finished (first outcome wins: redeliveries and late duplicates change nothing). */
export function recordFinished(r: RenderRecord, e: RenderFinished): RenderRecord | undefined {
  if (isTerminal(r)) return undefined;
  if (e.status === 'succeeded' && e.result) {
    return {
      ...r,
      status: 'succeeded',
      finishedMs: e.finished_unix_ms,
      file: e.result.object_name,
      expiresMs: e.result.expires_unix_ms,
      size: e.result.size,
    };
  }
  return {
    ...r,
    status: 'failed',
    finishedMs: e.finished_unix_ms,
    error: { code: e.error?.code || 'render_failed', message: e.error?.message || 'The render failed.' },
  };
}

/** A render queued or running long past its deadline: its renderer is gone. */
export function isStuck(r: RenderRecord, nowMs: number, graceMs: number): boolean {
  return !isTerminal(r) && nowMs > r.deadlineMs + graceMs;
}
