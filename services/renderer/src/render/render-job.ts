import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'puppeteer-core';
import type { RenderParams } from '@app/proto/render';
import { recordingAllowanceMs } from '@app/render-params';
import { fullPageHeightCap } from './capture-full-page.js';
import { countdown, type Countdown } from './countdown.js';
import { gpuHeader, type GpuSupport } from './gpu.js';
import { failOnContent, failOnStatus } from './honest-failures.js';
import { metadataHeaders } from './metadata.js';
import { lifecycleEvents, navigate } from './navigate.js';
import { setupPage } from './page-setup.js';
import { printPdf } from './pdf.js';
import { clickSelector } from './prepare/click.js';
import { hideSelectors, removeSelectors } from './prepare/hide.js';
import { injectStyles, runScripts } from './prepare/inject.js';
import { DEFAULT_SCROLL_STEP_MS, fullPageScrollBudgetMs, scrollThrough } from './prepare/scroll.js';
import { waitForSelector } from './prepare/wait-for-selector.js';
import { runSteps, type StepsEnv } from './steps/run-steps.js';
import { watchDocumentsAfterSteps, type DocumentsAfterSteps } from './steps/documents-after-steps.js';
import { renderError } from './render-errors.js';
import { scrapeContent } from './scrape.js';
import { screencastProducer, type ScreencastEnv } from './screencast/screencast.js';
import { takeScreenshot } from './screenshot.js';
import { hiddenPopupsStayOut, settleConsent } from './setup/consent.js';
import { capturePageSession, restorePageSession } from './session/page-session.js';
import type { Artifact, Production, RenderDeadline, RenderOperation, RenderOutput, RenderSession } from './types.js';

type Producer = (page: Page, params: RenderParams, env: RenderJobEnv) => Production;

/** A producer with nothing to start ahead: it works once the page is prepared. */
const atOnce =
  (make: (page: Page, params: RenderParams, clock: Countdown) => Promise<Artifact>): Producer =>
  (page, params) => ({ produce: (clock) => make(page, params, clock), abandon: async () => undefined });

const PRODUCERS: Readonly<Record<RenderOperation, Producer>> = {
  screenshot: atOnce(takeScreenshot),
  pdf: atOnce(printPdf),
  scrape: atOnce(scrapeContent),
  screencast: (page, params, env) => screencastProducer(page, params, env.screencast),
};

/** Time kept back for producing the output when waiting steps (consent, scrolling) spend the budget. */
const OUTPUT_RESERVE_MS = 1_500;
/** At most this long is waited for a cookie popup to be handled. */
const CONSENT_WAIT_MS = 2_000;

export interface RenderJobEnv {
  gpu?: GpuSupport | undefined;
  screencast?: ScreencastEnv | undefined;
  /** What `steps` need: the account secrets they type and the address check of their navigations. */
  steps?: StepsEnv | undefined;
  /** A task's kept session: restored before navigating, captured after success. */
  session?: RenderSession | undefined;
}

/** Without an environment, steps type no secret and every address may be loaded (tests, tools). */
const NO_STEPS_ENV: StepsEnv = { secrets: new Map(), checkAddress: async () => undefined };

/**
 * After the page loaded: steps, styles, scripts, wait_for_selector, cookie popups, click, hidden elements,
 * scrolling, then `delay`. `afterSteps` gets the watch of the documents loaded once the steps ended.
 */
async function prepare(
  page: Page,
  operation: RenderOperation,
  params: RenderParams,
  clock: Countdown,
  env: RenderJobEnv,
  afterSteps: { watch?: DocumentsAfterSteps },
): Promise<void> {
  // Steps first: what follows applies to the page they end on (a sign-in leads to the page wanted).
  if (params.steps?.length) {
    const { navigatedBy } = await runSteps(page, params.steps, lifecycleEvents(params.wait_until), clock, env.steps ?? NO_STEPS_ENV);
    if (navigatedBy) afterSteps.watch = watchDocumentsAfterSteps(page, navigatedBy);
  }
  const rest = prepareAfterSteps(page, operation, params, clock);
  await (afterSteps.watch ? afterSteps.watch.bound(rest, clock) : rest);
}

async function prepareAfterSteps(page: Page, operation: RenderOperation, params: RenderParams, clock: Countdown): Promise<void> {
  await injectStyles(page, params.styles);
  await runScripts(page, params.scripts, lifecycleEvents(params.wait_until), clock);
  await waitForSelector(page, params.wait_for_selector, clock);
  await settleConsent(page, params, Math.min(CONSENT_WAIT_MS, clock.remainingMs() - OUTPUT_RESERVE_MS), {
    unlessHidden: hiddenPopupsStayOut(operation, params),
  });
  await clickSelector(page, params.click_selector, clock);
  // A scrape reads the DOM: hidden elements are taken out of it, not only out of the rendering.
  if (operation === 'scrape') {
    await removeSelectors(page, params.hide_selectors);
    return sleepDelay(params);
  }
  await hideSelectors(page, params.hide_selectors);
  if (operation === 'screenshot' && params.full_page_scroll) {
    await scrollThrough(page, {
      amount: params.full_page_scroll_by_amount,
      durationMs: params.full_page_scroll_by_duration ?? DEFAULT_SCROLL_STEP_MS,
      budgetMs: fullPageScrollBudgetMs(clock.remainingMs(), params.delay),
      maxHeight: fullPageHeightCap(params.full_page_max_height, undefined),
    });
  }
  await sleepDelay(params);
}

const sleepDelay = (params: RenderParams) => (params.delay && params.delay > 0 ? sleep(params.delay * 1000) : undefined);

/**
 * Renders on a fresh page: set the page up, navigate, prepare, produce the file, add the metadata asked for.
 * The page's lifetime (and the hard deadline) belong to the caller, normally BrowserPool.run().
 * Failures are AppErrors whose messages are safe to show the caller.
 */
export async function renderJob(
  page: Page,
  operation: RenderOperation,
  params: RenderParams,
  deadline: RenderDeadline,
  env: RenderJobEnv = {},
): Promise<RenderOutput> {
  const clock = countdown(deadline);
  // Loading and preparing the page get `timeout`; a screencast's recording comes on top of it.
  const allowanceMs = recordingAllowanceMs(operation, params);
  const loading =
    allowanceMs > 0
      ? countdown({ timeoutMs: Math.max(1, deadline.timeoutMs - allowanceMs), endsAt: deadline.endsAt && deadline.endsAt - allowanceMs })
      : clock;
  let production: Production | undefined;
  // Loading may still run after its deadline answered: it must not start anything once the render ended.
  let ended = false;
  const afterSteps: { watch?: DocumentsAfterSteps } = {};
  try {
    // A page that never gives its thread back leaves in-page calls unanswered: the loading deadline
    // is kept by a timer of its own, not by each call's timeout.
    const navigation = await loading.within(
      (async () => {
        await setupPage(page, params, operation);
        if (env.session?.restore) await restorePageSession(page, env.session.restore, Date.now());
        // Started with the viewport set, so what it starts (an encoder) gets ready while the page loads.
        if (!ended) production = PRODUCERS[operation](page, params, env);
        const loaded = await navigate(page, params, loading);
        failOnStatus(params, loaded.status);
        await prepare(page, operation, params, loading, env, afterSteps);
        await failOnContent(page, params);
        return loaded;
      })(),
    );
    const producing = production!.produce(clock);
    const artifact = await (afterSteps.watch ? afterSteps.watch.bound(producing, clock) : producing);
    const [headers, gpu] = await Promise.all([
      metadataHeaders({ page, params, operation, navigation, artifact }),
      gpuHeader(page, params.gpu_rendering, env.gpu ?? { enabled: false }),
    ]);
    const output: RenderOutput = { ...artifact, headers: { ...headers, ...gpu } };
    if (navigation.status !== undefined) output.pageStatus = navigation.status;
    if (env.session?.keep) {
      // Best effort: a session that cannot be read is not kept (the next run signs in), the render stands.
      const session = await capturePageSession(page).catch(() => undefined);
      if (session) output.session = session;
    }
    return output;
  } catch (err) {
    const error = renderError(err, loading);
    throw afterSteps.watch ? afterSteps.watch.explain(error) : error;
  } finally {
    afterSteps.watch?.stop();
    ended = true;
    await production?.abandon();
  }
}
