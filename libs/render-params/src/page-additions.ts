import { stringParam } from './coerce.js';

/** `full_page_max_height`: where a full-page capture stops when not given, and the most it may be (CSS pixels). */
export const FULL_PAGE_MAX_HEIGHT = { default: 16_384, max: 50_000 } as const;

/** `styles` and `scripts` may each be at most this many bytes of UTF-8. */
export const PAGE_CODE_MAX_BYTES = 100_000;

const utf8 = new TextEncoder();

/** CSS or JavaScript added to the page: a string of at most PAGE_CODE_MAX_BYTES bytes (UTF-8). */
export const pageCode = () =>
  stringParam({ max: PAGE_CODE_MAX_BYTES }).refine((v) => utf8.encode(v).length <= PAGE_CODE_MAX_BYTES, {
    error: `must be at most ${PAGE_CODE_MAX_BYTES} bytes (UTF-8)`,
  });
