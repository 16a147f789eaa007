import type { Page } from 'puppeteer-core';
import type { RenderParams } from '@app/proto/render';
import { countdown, type Countdown } from './countdown.js';
import { metadataHeaders } from './metadata.js';
import { navigate } from './navigate.js';
import { setupPage } from './page-setup.js';
import { printPdf } from './pdf.js';
import { renderError } from './render-errors.js';
import { scrapeContent } from './scrape.js';
import { takeScreenshot } from './screenshot.js';
import type { Artifact, RenderDeadline, RenderOperation, RenderOutput } from './types.js';

type Producer = (page: Page, params: RenderParams, clock: Countdown) => Promise<Artifact>;

const PRODUCERS: Readonly<Record<RenderOperation, Producer>> = {
  screenshot: takeScreenshot,
  pdf: printPdf,
  scrape: scrapeContent,
};

/**
 * Renders on a fresh page: set the page up, navigate, produce the file, add the metadata asked for.
 * The page's lifetime (and the hard deadline) belong to the caller, normally BrowserPool.run().
 * Failures are AppErrors whose messages are safe to show the caller.
 */
export async function renderJob(
  page: Page,
  operation: RenderOperation,
  params: RenderParams,
  deadline: RenderDeadline,
): Promise<RenderOutput> {
  const clock = countdown(deadline);
  const produce = PRODUCERS[operation];
  try {
    await setupPage(page, params);
    const navigation = await navigate(page, params, clock);
    const artifact = await produce(page, params, clock);
    const headers = await metadataHeaders({ page, params, operation, navigation, artifact });
    const output: RenderOutput = { ...artifact, headers };
    if (navigation.status !== undefined) output.pageStatus = navigation.status;
    return output;
  } catch (err) {
    throw renderError(err, clock);
  }
}
