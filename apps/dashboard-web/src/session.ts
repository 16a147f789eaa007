import { setCsrfToken, type SessionView } from './api.js';

/** The signed-in session as the page knows it. */
let current: SessionView | undefined;

export function useSession(session: SessionView): void {
  current = session;
  setCsrfToken(session.csrf_token);
}

export function session(): SessionView {
  if (!current) throw new Error('not signed in');
  return current;
}
