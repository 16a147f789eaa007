import { api, ApiError, whenSessionExpires, type SessionView } from './api.js';
import { $, busy, clearProblems, notice, showProblems, text } from './dom.js';
import { session, useSession } from './session.js';
import { showOverview } from './overview.js';
import { bindKeys, showKeys } from './keys.js';
import { bindTasks, showTasks } from './tasks.js';
import { bindRenders, showRenders } from './renders.js';
import { bindPlayground } from './playground.js';

const VIEWS: Record<string, () => Promise<void> | void> = {
  overview: showOverview,
  keys: showKeys,
  tasks: showTasks,
  renders: showRenders,
  playground: () => undefined,
};
const SIGN_IN = { prefix: '', errorId: 'sign-in-error', fieldOf: (p: string) => ({ access_key: 'access-key', secret_key: 'secret-key' })[p] };

const currentView = () => {
  // #tasks/<id> is the tasks view with that task open.
  const name = location.hash.slice(1).split('/')[0]!;
  return name in VIEWS ? name : 'overview';
};

async function route(): Promise<void> {
  const name = currentView();
  notice('');
  for (const view of Object.keys(VIEWS)) $(`view-${view}`).hidden = view !== name;
  document.querySelectorAll<HTMLAnchorElement>('.tabs a').forEach((a) => {
    if (a.dataset.tab === name) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  });
  document.title = `${name[0]!.toUpperCase()}${name.slice(1)} · Account dashboard`;
  try {
    await VIEWS[name]!();
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 'session_expired')) notice((err as Error).message, 'error');
  }
}

function showAccount(s: SessionView): void {
  text('account-name', s.account.name);
  text('account-plan', s.account.plan);
}

function enterApp(s: SessionView): void {
  useSession(s);
  showAccount(s);
  $('sign-in').hidden = true;
  $('sign-in').classList.remove('overlay');
  $('app').hidden = false;
  $('app').inert = false;
}

/** Sign-in over the page: what was typed in the dashboard stays where it is. */
function askToSignInAgain(err: ApiError): void {
  if (!$('app').hidden && !$('sign-in').hidden) return;
  const overlay = !$('app').hidden;
  $('sign-in').classList.toggle('overlay', overlay);
  $('app').inert = overlay;
  $('sign-in').hidden = false;
  text('sign-in-title', overlay ? 'Sign in again to continue' : 'Sign in to your account');
  text('sign-in-note', overlay ? `${err.message} What you typed on the page is kept.` : $('sign-in-note').textContent ?? '');
  $<HTMLInputElement>('access-key').focus();
}

function bindSignIn(): void {
  const form = $<HTMLFormElement>('sign-in-form');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const submit = form.querySelector<HTMLButtonElement>('button[type="submit"]')!;
    void busy(submit, async () => {
      clearProblems(SIGN_IN);
      try {
        const s = await api<SessionView>(
          'POST',
          '/sign-in',
          { access_key: $<HTMLInputElement>('access-key').value, secret_key: $<HTMLInputElement>('secret-key').value },
          { quietExpiry: true },
        );
        form.reset();
        enterApp(s);
        // Focus moves to the app as soon as it shows, not when the view's data has loaded: keys typed
        // meanwhile (the user already in another field) must not be taken away from where they went.
        const routed = route();
        $('main').focus();
        await routed;
      } catch (err) {
        const e = err instanceof ApiError ? err : new ApiError(0, 'network', 'The service could not be reached. Try again.');
        const message = e.code === 'rate_limited' ? `Too many attempts. Try again in ${e.retryAfter ?? 60} seconds.` : e.message;
        showProblems(SIGN_IN, message, e.details);
        $('sign-in-error').textContent = message;
      }
    });
  });
}

function bindSignOut(): void {
  const button = $<HTMLButtonElement>('sign-out');
  button.addEventListener('click', () =>
    void busy(button, async () => {
      await api('POST', '/sign-out').catch(() => undefined);
      location.hash = '';
      location.reload();
    }),
  );
}

async function start(): Promise<void> {
  whenSessionExpires(askToSignInAgain);
  bindSignIn();
  bindSignOut();
  bindKeys(() => showAccount(session()));
  bindTasks();
  bindRenders();
  bindPlayground();
  window.addEventListener('hashchange', () => void route());
  try {
    enterApp(await api<SessionView>('GET', '/session', undefined, { quietExpiry: true }));
    await route();
  } catch {
    $('sign-in').hidden = false;
    $<HTMLInputElement>('access-key').focus();
  }
}

void start();
