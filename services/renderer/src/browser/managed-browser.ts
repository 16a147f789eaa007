import puppeteer, { type Browser } from 'puppeteer-core';
import { browserLaunchOptions } from './launch-options.js';
import { createProfileDir } from './profile-dirs.js';
import { killProcessGroup, waitForGroupExit } from './process-group.js';
import { settleWithin } from './settle-within.js';

export interface ManagedBrowserOptions {
  executablePath: string;
  proxyUrl?: string | undefined;
  gpu?: boolean | undefined;
  trustedSpki?: readonly string[] | undefined;
}

/** One Chromium process with its own temporary profile, and the means to end it for sure. */
export interface ManagedBrowser {
  readonly browser: Browser;
  readonly pid: number | undefined;
  /** Settles once the browser and the rest of its process group have exited and the profile is removed. */
  readonly exited: Promise<void>;
  /** SIGKILL the whole process group (browser, zygotes, renderers, GPU/utility processes). */
  kill(): void;
  /** Graceful close; SIGKILL if it has not finished within graceMs. Resolves after exit. */
  close(graceMs: number): Promise<void>;
}

export async function launchManagedBrowser(options: ManagedBrowserOptions): Promise<ManagedBrowser> {
  const profile = await createProfileDir();
  let browser: Browser;
  try {
    browser = await puppeteer.launch(
      browserLaunchOptions({
        executablePath: options.executablePath,
        userDataDir: profile.userDataDir,
        tmpDir: profile.tmpDir,
        proxyUrl: options.proxyUrl,
        gpu: options.gpu,
        trustedSpki: options.trustedSpki,
      }),
    );
  } catch (err) {
    await profile.remove();
    throw err;
  }

  const child = browser.process();
  const pid = child?.pid;
  const kill = (): void => killProcessGroup(pid);

  const exited = new Promise<void>((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
  }).then(async () => {
    // Sweep what the browser left behind in its group (zygotes, renderers) before deleting the profile.
    await waitForGroupExit(pid, 2_000);
    await profile.remove();
  });

  return {
    browser,
    pid,
    exited,
    kill,
    async close(graceMs) {
      const closed = await settleWithin(browser.close(), graceMs);
      if (!closed) kill();
      if (!(await settleWithin(exited, graceMs))) {
        kill();
        await profile.remove();
      }
    },
  };
}
