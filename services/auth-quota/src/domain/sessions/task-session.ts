import { ValidationError } from '@app/errors';

/** A kept session (the renderer's JSON of cookies and local storage) is at most this many characters. */
export const MAX_SESSION_LENGTH = 1_000_000;

/** One stream per account and task: a session is never read under another task or account. */
export const taskSessionStreamId = (accountId: string, taskId: string) => `task-session-${accountId}-${taskId}`;

/** The session kept for a task, sealed under the master key (never in the clear). */
export type TaskSession = { sealed: string | null };

export type TaskSessionEvent =
  | { type: 'TaskSessionKept'; data: { sealed: string; atMs: number } }
  | { type: 'TaskSessionForgotten'; data: { atMs: number } };

/** The checks of a session the renderer hands over (ids it names, a bounded size). */
export function taskSessionProblems(accountId: string, taskId: string, session: string | undefined): { parameter: string; message: string }[] {
  const problems: { parameter: string; message: string }[] = [];
  if (!accountId) problems.push({ parameter: 'account_id', message: 'account_id is required' });
  if (!/^[1-9]\d{0,14}$/.test(taskId)) problems.push({ parameter: 'task_id', message: 'task_id must be a task id' });
  if (session !== undefined && (session.length === 0 || session.length > MAX_SESSION_LENGTH)) {
    problems.push({ parameter: 'session', message: `session must be 1 to ${MAX_SESSION_LENGTH} characters` });
  }
  return problems;
}

export function checkTaskSession(accountId: string, taskId: string, session?: string): void {
  const problems = taskSessionProblems(accountId, taskId, session);
  if (problems.length > 0) throw new ValidationError(problems);
}

export const taskSessionDecider = {
  initialState: (): TaskSession => ({ sealed: null }),
  evolve: (_state: TaskSession, event: TaskSessionEvent): TaskSession =>
    event.type === 'TaskSessionKept' ? { sealed: event.data.sealed } : { sealed: null },
  /** Keeping an unchanged session records nothing; forgetting none records nothing. */
  keep: (state: TaskSession, sealed: string, unchanged: boolean, atMs: number): TaskSessionEvent[] =>
    state.sealed !== null && unchanged ? [] : [{ type: 'TaskSessionKept', data: { sealed, atMs } }],
  forget: (state: TaskSession, atMs: number): TaskSessionEvent[] => (state.sealed === null ? [] : [{ type: 'TaskSessionForgotten', data: { atMs } }]),
};
