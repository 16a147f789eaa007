/// <reference lib="dom" />
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { BrowserContext, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserPool, type BrowserPoolOptions } from './browser-pool.js';
import { startFixtureServer, type FixtureServer } from './testing/fixture-server.js';
import { processExists, processesInGroups, waitFor } from './testing/processes.js';
import { startRecordingProxy, type RecordingProxy } from './testing/recording-proxy.js';

const TIMEOUT = { timeoutMs: 10_000 };
let fixture: FixtureServer;

beforeAll(async () => {
  fixture = await startFixtureServer();
});
afterAll(() => fixture.close());

/** A pool for one describe block; options may be computed in beforeAll (e.g. a proxy's port). */
function usePool(options: Partial<BrowserPoolOptions> | (() => Partial<BrowserPoolOptions>)): () => BrowserPool {
  let pool: BrowserPool;
  beforeAll(async () => {
    const extra = typeof options === 'function' ? options() : options;
    pool = new BrowserPool({ browsers: 1, concurrency: 2, maxQueue: 4, restartAfter: 0, warmContexts: 1, ...extra });
    await pool.start();
  });
  afterAll(() => pool.stop());
  return () => pool;
}

const pidOf = (page: Page): number | undefined => page.browser().process()?.pid;
const pids = (pool: BrowserPool) => pool.stats().browsers.map((b) => b.pid);
const visit = (path: string) => async (page: Page) => {
  await page.goto(fixture.url(path));
  return { pid: pidOf(page), title: await page.title() };
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('BrowserPool', () => {
  describe('When started with two browsers', () => {
    const pool = usePool({ browsers: 2, warmContexts: 2 });

    it('should launch them up front and never per request', async () => {
      const started = pids(pool());
      expect(new Set(started).size).toBe(2);
      const seen = new Set<number | undefined>();
      for (let i = 0; i < 10; i++) seen.add((await pool().run(visit('/blank'), TIMEOUT)).pid);
      expect([...seen].every((pid) => started.includes(pid))).toBe(true);
      expect(pids(pool())).toEqual(started);
      expect(pool().stats().browsers.map((b) => b.renders).reduce((a, b) => a + b)).toBe(10);
    });

    it('should spread concurrent renders over the browsers', async () => {
      // From two idle browsers: a render of the test before may still be closing its context (a lease
      // still held, which counts as load), and a browser refilling its warm contexts loses a tie.
      const idle = (b: ReturnType<BrowserPool['stats']>['browsers'][number]) => b.state === 'active' && b.inFlight === 0 && b.warm === 2;
      await waitFor(() => pool().stats().browsers.filter(idle).length === 2, 10_000);
      const results = await Promise.all([0, 1].map(() => pool().run(async (page) => (await sleep(200), pidOf(page)), TIMEOUT)));
      expect(new Set(results).size).toBe(2);
    });

    it('should drain in-flight renders on stop and leave no Chromium process or profile behind', async () => {
      const groups = pids(pool()) as number[];
      const profiles = groups.map((pid) => dirname(/--user-data-dir=(\S+)/.exec(cmdline(pid))?.[1] ?? '/nonexistent/x'));
      expect(profiles.every((p) => p && existsSync(p))).toBe(true);
      // Stopped while the render is in flight (started, not queued behind the last test's renders).
      await waitFor(() => pool().stats().browsers.every((b) => b.inFlight === 0), 10_000);
      const inFlight = pool().run(async (page) => (await sleep(300), visit('/blank')(page)), TIMEOUT);
      await waitFor(() => pool().stats().browsers.some((b) => b.inFlight > 0), 5_000);
      await pool().stop();
      await expect(inFlight).resolves.toMatchObject({ title: 'blank' });
      // Nothing alive. Zygotes that exit just after the browser are re-parented to PID 1, which reaps them.
      const left = processesInGroups(groups);
      expect(left.filter((p) => p.state !== 'Z')).toEqual([]);
      expect(left.every((p) => p.ppid === 1)).toBe(true);
      await waitFor(() => processesInGroups(groups).length === 0, 5_000);
      expect(profiles.some((p) => existsSync(p!))).toBe(false);
      await expect(pool().run(visit('/blank'), TIMEOUT)).rejects.toMatchObject({ code: 'renderer_unavailable' });
    });
  });

  describe('When renders follow each other on one browser', () => {
    const pool = usePool({ browsers: 1, warmContexts: 2 });

    it('should isolate cookies and storage between renders', async () => {
      await pool().run(async (page) => {
        await page.goto(fixture.url('/blank'));
        await page.evaluate(() => {
          document.cookie = 'session=abc; max-age=3600; path=/';
          localStorage.setItem('secret', 'v1');
          sessionStorage.setItem('secret', 'v1');
        });
        expect(await page.evaluate(() => document.cookie)).toBe('session=abc');
      }, TIMEOUT);
      const seen = await pool().run(async (page) => {
        await page.goto(fixture.url('/blank'));
        return page.evaluate(() => ({ cookie: document.cookie, local: localStorage.getItem('secret'), session: sessionStorage.getItem('secret') }));
      }, TIMEOUT);
      expect(seen).toEqual({ cookie: '', local: null, session: null });
    });

    it('should close the context after a successful render', async () => {
      let context: BrowserContext | undefined;
      await pool().run(async (page) => void (context = page.browserContext()), TIMEOUT);
      await waitFor(() => context!.closed, 2_000);
    });

    it('should pass the task error through and still close the context', async () => {
      let context: BrowserContext | undefined;
      const failing = pool().run(async (page) => {
        context = page.browserContext();
        throw new Error('task failed');
      }, TIMEOUT);
      await expect(failing).rejects.toThrow('task failed');
      await waitFor(() => context!.closed, 2_000);
    });

    it('should time out a hung page at the deadline and render the next request', async () => {
      const before = pids(pool());
      const started = Date.now();
      const hung = await pool()
        .run(async (page) => page.goto(fixture.url('/hang')), { timeoutMs: 3_000 })
        .catch((err: unknown) => err);
      const elapsed = Date.now() - started;
      expect(hung).toMatchObject({ code: 'render_timeout', message: expect.stringContaining('3 seconds') });
      expect(elapsed).toBeGreaterThanOrEqual(2_900);
      expect(elapsed).toBeLessThan(4_000);
      await expect(pool().run(visit('/blank'), TIMEOUT)).resolves.toMatchObject({ title: 'blank' });
      expect(Date.now() - started).toBeLessThan(6_000);
      // the hung renderer was stopped (context closed, or the browser killed and replaced)
      await waitFor(() => pool().stats().inFlight === 0, 3_000);
      console.info(`hung page: rejected after ${elapsed} ms, browser ${pids(pool())[0] === before[0] ? 'kept' : 'replaced'}`);
    });

    it('should answer at the deadline when CDP hangs, then kill and replace the browser', async () => {
      const [pid] = pids(pool()) as number[];
      const started = Date.now();
      const frozen = await pool()
        .run(async (page) => {
          await page.goto(fixture.url('/blank'));
          process.kill(pid!, 'SIGSTOP'); // the browser stops answering CDP
          await page.screenshot();
        }, { timeoutMs: 2_000 })
        .catch((err: unknown) => err);
      expect(frozen).toMatchObject({ code: 'render_timeout' });
      expect(Date.now() - started).toBeLessThan(2_500);
      // context close cannot finish → after the ~2 s grace the process group is SIGKILLed and replaced
      await waitFor(() => !processExists(pid!) && pool().healthy(), 10_000);
      await expect(pool().run(visit('/blank'), TIMEOUT)).resolves.toMatchObject({ title: 'blank' });
    });

    it('should fail in-flight renders of a killed browser at once and replace it', async () => {
      const [pid] = pids(pool()) as number[];
      const started = Date.now();
      const inFlight = pool()
        .run(async (page) => {
          await page.goto(fixture.url('/blank'));
          await new Promise(() => undefined); // hangs until the browser dies
        }, TIMEOUT)
        .catch((err: unknown) => err);
      await sleep(300);
      process.kill(pid!, 'SIGKILL');
      expect(await inFlight).toMatchObject({ code: 'render_failed' });
      expect(Date.now() - started).toBeLessThan(2_000);
      await waitFor(() => pool().healthy() && !pids(pool()).includes(pid), 10_000);
      const after = await pool().run(visit('/blank'), TIMEOUT);
      expect(after.pid).not.toBe(pid);
      await waitFor(() => processesInGroups([pid!]).length === 0, 2_000);
    });
  });

  describe('When an egress proxy is configured', () => {
    let proxy: RecordingProxy;
    beforeAll(async () => {
      proxy = await startRecordingProxy();
    });
    afterAll(() => proxy.close());
    const pool = usePool(() => ({ warmContexts: 0, proxyUrl: proxy.url }));

    it('should send every request through it, loopback included', async () => {
      await expect(pool().run(visit('/'), TIMEOUT)).resolves.toMatchObject({ title: 'Fixture page' });
      expect(proxy.seen).toEqual(expect.arrayContaining([fixture.url('/'), fixture.url('/style.css')]));
    });
  });

  describe('When a browser reaches restartAfter renders', () => {
    const pool = usePool({ browsers: 1, concurrency: 1, restartAfter: 3 });

    it('should replace it with a new process without failing a render', async () => {
      const [first] = pids(pool()) as number[];
      for (let i = 0; i < 3; i++) expect((await pool().run(visit('/blank'), TIMEOUT)).pid).toBe(first);
      await waitFor(() => !pids(pool()).includes(first) && pool().healthy(), 10_000);
      const next = await pool().run(visit('/blank'), TIMEOUT);
      expect(next.pid).not.toBe(first);
      await waitFor(() => !processExists(first!), 5_000);
    });
  });

  describe('When every slot and the queue are taken', () => {
    const pool = usePool({ browsers: 1, concurrency: 1, maxQueue: 1, warmContexts: 0 });
    const slow = (ms: number) => async () => (await sleep(ms), 'done');

    it('should refuse the next render with renderer_unavailable and finish the accepted ones', async () => {
      const running = pool().run(slow(400), TIMEOUT);
      const queued = pool().run(slow(10), TIMEOUT);
      expect(pool().stats()).toMatchObject({ inFlight: 1, queued: 1 });
      await expect(pool().run(slow(10), TIMEOUT)).rejects.toMatchObject({ code: 'renderer_unavailable' });
      await expect(Promise.all([running, queued])).resolves.toEqual(['done', 'done']);
    });

    it('should give up on a queued render whose deadline passes with renderer_unavailable', async () => {
      const running = pool().run(slow(800), TIMEOUT);
      const started = Date.now();
      await expect(pool().run(slow(10), { timeoutMs: 300 })).rejects.toMatchObject({ code: 'renderer_unavailable' });
      expect(Date.now() - started).toBeLessThan(1_000);
      await expect(running).resolves.toBe('done');
      expect(pool().stats().queued).toBe(0);
    });
  });
});

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}
