import type { RenderJob } from '@app/proto/render';
import { parsePageSession, type PageSession, type RenderSession } from '../render/index.js';
import type { SessionStore } from './ports.js';

/** Who a job's kept session belongs to: a task's run with keep_session, else nobody. */
const ownerOf = (job: RenderJob): { accountId: string; taskId: string } | undefined =>
  job.keep_session && job.origin === 'task' && job.task_id && job.account_id ? { accountId: job.account_id, taskId: job.task_id } : undefined;

/**
 * The session a job's render starts from and keeps. A session that cannot be read (auth-quota away, a
 * kept value that is no session) is no session: the run signs in as its steps say.
 */
export async function sessionOfJob(job: RenderJob, store: SessionStore | undefined): Promise<RenderSession | undefined> {
  const owner = ownerOf(job);
  if (!owner || !store) return undefined;
  const kept = await store.read(owner.accountId, owner.taskId).catch(() => undefined);
  return { restore: kept === undefined ? undefined : parsePageSession(kept), keep: true };
}

/** Keeps the page's session after a successful render of a job that keeps one (best effort: the next run signs in again). */
export async function keepSessionOfJob(job: RenderJob, session: PageSession | undefined, store: SessionStore | undefined): Promise<boolean> {
  const owner = ownerOf(job);
  if (!owner || !store || !session) return false;
  return store.keep(owner.accountId, owner.taskId, JSON.stringify(session)).then(
    () => true,
    () => false,
  );
}
