import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';

export interface SignInSite {
  origin: string;
  server: FixtureServer;
  /** Sign-in forms posted (right or wrong). */
  signIns(): number;
  /** Every password posted to the form, in order: proves what a `type` step typed. */
  passwordsReceived(): string[];
  /** The text the signed-in page shows (change it to make a monitor see a change). */
  setBalance(text: string): void;
  /** The session ids handed out so far (to search for them where they must not be). */
  sessionIds(): string[];
  /** Ends every session now (as if each expired). */
  endSessions(): void;
  close(): Promise<void>;
}

const html = (res: ServerResponse, body: string, status = 200, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(`<!doctype html><html><head><meta charset="utf-8"><title>Shop account</title></head><body>${body}</body></html>`);
};

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      if (text.length < 100_000) text += chunk;
    });
    req.on('end', () => resolve(text));
  });

const cookieOf = (req: IncomingMessage, name: string) =>
  (req.headers.cookie ?? '').split(/;\s*/).find((c) => c.startsWith(`${name}=`))?.slice(name.length + 1);

/**
 * A site behind a form sign-in: `/login` (user, password, a submit button), a session cookie that
 * expires after `sessionMs`, `/account` (the balance, or a redirect to /login without a valid session),
 * and a note in local storage set on sign-in and shown on /account. It counts the sign-in POSTs.
 */
/**
 * The browser steps that sign in to a SignInSite as `user`, the password typed from the account secret
 * `secret`: every sign-in step is optional, so a run whose kept session is still valid goes straight on.
 */
export const signInSteps = (site: Pick<SignInSite, 'origin'>, user: string, secret: string) => [
  { action: 'goto', url: `${site.origin}/login` },
  { action: 'type', selector: '#user', text: user, optional: true },
  { action: 'type', selector: '#password', secret, optional: true },
  { action: 'click', selector: '#sign-in', optional: true },
  { action: 'wait_for_selector', selector: '#to-account, #balance' },
  { action: 'click', selector: '#to-account', optional: true },
  { action: 'wait_for_selector', selector: '#balance' },
];

export async function startSignInSite(opts: { user: string; password: string; sessionMs: number; balance?: string }): Promise<SignInSite> {
  const sessions = new Map<string, number>();
  const issued: string[] = [];
  const posted: string[] = [];
  let balance = opts.balance ?? 'Balance: 100 EUR';
  const valid = (req: IncomingMessage) => {
    const id = cookieOf(req, 'session');
    const until = id ? sessions.get(id) : undefined;
    return until !== undefined && until > Date.now();
  };
  const server = await startFixtureServer({
    '/login': async (req, res) => {
      if (req.method === 'POST') {
        const form = new URLSearchParams(await readBody(req));
        posted.push(form.get('password') ?? '');
        if (form.get('user') !== opts.user || form.get('password') !== opts.password) {
          return html(res, '<p id="error">Wrong user or password.</p><a href="/login">again</a>', 401);
        }
        const id = randomBytes(16).toString('hex');
        sessions.set(id, Date.now() + opts.sessionMs);
        issued.push(id);
        res.writeHead(303, {
          location: '/account?signed-in=1',
          'set-cookie': `session=${id}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${Math.ceil(opts.sessionMs / 1000)}`,
        });
        return res.end();
      }
      if (valid(req)) return html(res, '<p id="already">You are signed in. <a id="to-account" href="/account">Your account</a></p>');
      return html(
        res,
        `<form id="login" method="post" action="/login">
          <label>User <input id="user" name="user" autocomplete="username"></label>
          <label>Password <input id="password" name="password" type="password" autocomplete="current-password"></label>
          <button id="sign-in" type="submit">Sign in</button>
        </form>`,
      );
    },
    '/account': (req, res) => {
      if (!valid(req)) {
        res.writeHead(302, { location: '/login', 'cache-control': 'no-store' });
        return res.end();
      }
      const signedIn = (req.url ?? '').includes('signed-in=1') ? "<script>localStorage.setItem('note', 'remembered by local storage')</script>" : '';
      return html(res, `<h1>Your account</h1><p id="balance">${balance}</p><p id="note"></p>${signedIn}<script>document.getElementById('note').textContent = localStorage.getItem('note') || 'no note'</script>`);
    },
  });
  return {
    origin: server.origin,
    server,
    signIns: () => server.requests.filter((r) => r.method === 'POST' && r.path === '/login').length,
    passwordsReceived: () => [...posted],
    setBalance: (text) => void (balance = text),
    sessionIds: () => [...issued],
    endSessions: () => sessions.clear(),
    close: () => server.close(),
  };
}
