import type { Page } from 'puppeteer-core';
import type { RenderParams } from '@app/proto/render';
import type { RenderOperation } from '../types.js';

/**
 * One concern of preparing a page before navigation. A step looks at the parameters it owns and
 * does nothing (returns undefined, no CDP call) when they are absent. Steps run concurrently, so
 * each must be independent of the others; order-dependent work belongs in a single step.
 */
export type PageSetupStep = (page: Page, params: RenderParams, operation: RenderOperation) => Promise<unknown> | undefined;
