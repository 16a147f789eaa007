import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { browsersOf, snapshotProcesses, useByServiceSince } from './process-cpu.js';

/** Spends `ms` of CPU time (not wall time), so the figures hold on a busy machine. */
const BURN =
  'const used = () => { const u = process.cpuUsage(); return u.user + u.system; };' +
  'const burn = (ms) => { const end = used() + ms * 1000; let x = 0; while (used() < end) for (let i = 0; i < 1e5; i++) x += i; return x; };';

/**
 * A stand-in service (its command line names services/fake/dist/main.js, as the stack's do) with a
 * stand-in browser (a process whose command line names chromium) that has a page process under it. On
 * `recycle` the service ends its browser, then spends 200 ms itself and starts a new browser that spends
 * 300 ms: a renderer recycling its Chromium. The old browser either ends its page process and waits for it
 * (`browserWaits`), or exits and leaves it behind, as Chromium leaves its zygote and page processes.
 */
function fakeService(dir: string, browserWaits: boolean): ChildProcess {
  const pageProcess = join(dir, 'chromium-page.js');
  // Left behind by its browser, a page process ends a moment later, as Chromium's do.
  writeFileSync(
    pageProcess,
    `${BURN} burn(Number(process.argv[2])); process.send('burnt'); setInterval(() => undefined, 1000); process.on('disconnect', () => setTimeout(() => process.exit(0), 50));`,
  );
  const browser = join(dir, 'chromium.js');
  writeFileSync(
    browser,
    `${BURN}
const { fork } = require('node:child_process');
const pageMs = Number(process.argv[2]);
if (pageMs === 0) { burn(300); process.send('burnt'); setInterval(() => undefined, 1000); }
else {
  const page = fork(${JSON.stringify(pageProcess)}, [String(pageMs)]);
  page.once('message', () => process.send(page.pid));
  setInterval(() => undefined, 1000);
  process.on('SIGTERM', () => ${browserWaits ? "{ page.once('exit', () => process.exit(0)); page.kill(); }" : 'process.exit(0)'});
}`,
  );
  const main = join(dir, 'services', 'fake', 'dist', 'main.js');
  mkdirSync(join(dir, 'services', 'fake', 'dist'), { recursive: true });
  writeFileSync(
    main,
    `${BURN}
const { fork } = require('node:child_process');
const old = fork(${JSON.stringify(browser)}, ['600']);
old.once('message', (pagePid) => process.send(pagePid));
process.on('message', () => {
  old.once('exit', () => {
    burn(200);
    const next = fork(${JSON.stringify(browser)}, ['0']);
    next.once('message', () => process.send('recycled'));
  });
  old.kill('SIGTERM');
});
setInterval(() => undefined, 1000);`,
  );
  // A process group of its own, so the test ends the service with everything it started.
  return spawn(process.execPath, [main], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], detached: true });
}

/** Seconds summed from figures of hundredths read apart: 0.19 may come out as 0.18999999999999997. */
const FLOAT_ERROR = 1e-9;

const nextMessage = (child: ChildProcess) => new Promise<unknown>((resolve) => child.once('message', resolve));

describe('CPU a service used since a snapshot', () => {
  let dir: string | undefined;
  let service: ChildProcess | undefined;
  afterEach(() => {
    if (service?.pid) process.kill(-service.pid, 'SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Starts the stand-in service, takes the snapshot once its first browser has worked, and has it recycle that browser. */
  async function snapshotThenRecycle(browserWaits = true) {
    dir = mkdtempSync(join(tmpdir(), 'process-cpu-'));
    service = fakeService(dir, browserWaits);
    const pagePid = (await nextMessage(service)) as number;
    const before = snapshotProcesses();
    const recycled = nextMessage(service);
    service.send('recycle');
    await recycled;
    // The old page process has ended (a page process left behind ends a moment after its browser).
    await vi.waitUntil(() => !existsSync(`/proc/${pagePid}`), { timeout: 5_000 });
    return before;
  }

  /**
   * The service: its 200 ms and the forking; its browsers: the new one's 300 ms and its start-up, none of the
   * old page process's 600 ms done before the snapshot.
   */
  async function expectRecycledApart(browserWaits: boolean) {
    const use = useByServiceSince(await snapshotThenRecycle(browserWaits), process.pid, { browsersApart: true });
    expect(use.fake!.cpu).toBeGreaterThanOrEqual(0.19 - FLOAT_ERROR);
    expect(use.fake!.cpu).toBeLessThan(0.45);
    expect(use[browsersOf('fake')]!.cpu).toBeGreaterThanOrEqual(0.29 - FLOAT_ERROR);
    expect(use[browsersOf('fake')]!.cpu).toBeLessThan(0.7);
  }

  describe('When the service recycles its browser, whose page process had worked before the snapshot, with browsers apart', () => {
    // The page process's life comes back with the old browser's reaped lives and must be taken off again.
    it("should count the service's own work and its new browser's apart, and none of what the old browser's page process did before", () =>
      expectRecycledApart(true));
  });

  describe('When the recycled browser exits and leaves its page process behind, with browsers apart', () => {
    // The page process's life never came back through the browser: taking it off would leave less than nothing.
    it("should count its new browser's work, and take off only what came back: the old browser's own life", () => expectRecycledApart(false));
  });

  describe('When browsers are not apart', () => {
    it("should count the service's whole process tree as the service's", async () => {
      const use = useByServiceSince(await snapshotThenRecycle());
      expect(use.fake!.cpu).toBeGreaterThanOrEqual(0.49 - FLOAT_ERROR);
      expect(use.fake!.cpu).toBeLessThan(1.1);
      expect(use[browsersOf('fake')]).toBeUndefined();
    });
  });
});
