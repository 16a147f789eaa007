/// <reference lib="dom" />
import type { CookieData, Page } from 'puppeteer-core';

/** A page's session as a task keeps it: the context's cookies and the local storage of the page's origin. */
export interface PageSession {
  cookies: CookieData[];
  /** The origin of the page the render ended on, and its local storage. */
  localStorage?: { origin: string; items: [string, string][] };
}

/** Marks (in the tab's session storage) that the kept local storage was put back, so a later load of the run does not undo the page's own writes. */
const RESTORED_MARK = '__render_session_restored';

/** A page that does not give its thread back within this keeps no local storage. */
const CAPTURE_WAIT_MS = 2_000;

const withinMs = <T>(ms: number, work: Promise<T>): Promise<T | undefined> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
};

/** Local storage beyond this many characters (keys and values) is not kept: the session keeps its cookies. */
const LOCAL_STORAGE_MAX_CHARS = 500_000;

/**
 * Puts a kept session back on a fresh page, before it navigates: the cookies into its browser context
 * (expired ones left out), the local storage by a script that runs first on the next document of its
 * origin (once per run: what the page writes afterwards stands).
 */
export async function restorePageSession(page: Page, session: PageSession, nowMs: number): Promise<void> {
  const live = session.cookies.filter((c) => c.expires === undefined || c.expires <= 0 || c.expires * 1000 > nowMs);
  if (live.length > 0) await page.browserContext().setCookie(...live);
  const kept = session.localStorage;
  if (kept && kept.items.length > 0) {
    await page.evaluateOnNewDocument(
      (origin: string, items: [string, string][], mark: string) => {
        try {
          if (location.origin !== origin || sessionStorage.getItem(mark)) return;
          for (const [key, value] of items) localStorage.setItem(key, value);
          sessionStorage.setItem(mark, '1');
        } catch {
          // Storage refused (an opaque origin, storage disabled): the page runs without it.
        }
      },
      kept.origin,
      kept.items,
      RESTORED_MARK,
    );
  }
}

/** The page's session once the render succeeded: every cookie of its context, and its origin's local storage. */
export async function capturePageSession(page: Page): Promise<PageSession> {
  const cookies: CookieData[] = (await page.browserContext().cookies()).map((c) => ({
    name: c.name,
    value: c.value,
    domain: c.domain,
    path: c.path,
    secure: c.secure,
    httpOnly: c.httpOnly,
    ...(c.sameSite ? { sameSite: c.sameSite } : {}),
    // A session cookie (no expiry) is kept as one: the next run's context starts it again.
    ...(c.session || c.expires <= 0 ? {} : { expires: c.expires }),
  }));
  const storage = await withinMs(
    CAPTURE_WAIT_MS,
    page.evaluate((mark: string) => {
      if (!/^https?:$/.test(location.protocol)) return undefined;
      const items: [string, string][] = [];
      for (let i = 0; i < localStorage.length; i++) {
        const key = localStorage.key(i);
        if (key !== null && key !== mark) items.push([key, localStorage.getItem(key) ?? '']);
      }
      return { origin: location.origin, items };
    }, RESTORED_MARK),
  ).catch(() => undefined);
  const size = storage ? storage.items.reduce((n, [k, v]) => n + k.length + v.length, 0) : 0;
  return storage && storage.items.length > 0 && size <= LOCAL_STORAGE_MAX_CHARS ? { cookies, localStorage: storage } : { cookies };
}

/** The kept JSON as a session; undefined when it is not one (then the run starts without it). */
export function parsePageSession(json: string): PageSession | undefined {
  try {
    const value = JSON.parse(json) as Partial<PageSession>;
    if (!value || !Array.isArray(value.cookies)) return undefined;
    const storage = value.localStorage;
    const validStorage = storage && typeof storage.origin === 'string' && Array.isArray(storage.items) ? storage : undefined;
    return { cookies: value.cookies, ...(validStorage ? { localStorage: validStorage } : {}) };
  } catch {
    return undefined;
  }
}
