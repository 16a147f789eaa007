import { z } from 'zod';
import { boolParam, enumParam, listParam, numberOrUnsetParam, numberParam, splitCookiePairs, splitHeaderPairs, splitTopLevel, stringParam } from './coerce.js';
import { DEVICE_NAMES, canonicalDeviceId } from './devices.js';
import { DEFAULT_IMAGE_QUALITY, DEFAULT_TIMEOUT_SECONDS, DEFAULT_VIEWPORT } from './defaults.js';
import { SCREENCAST_FORMATS, SCREENCAST_PARAMETERS } from './screencast.js';
import { FAILURE_PARAMETERS } from './failure-parameters.js';
import { PDF_PARAMETERS } from './pdf-parameters.js';
import { PRINTABLE_ASCII, absoluteUrl, attachmentName, cookiePair, headerPair, proxyUrl, selector, timezone, webhookUrl } from './parameter-values.js';
import { FULL_PAGE_MAX_HEIGHT, PAGE_CODE_MAX_BYTES, pageCode } from './page-additions.js';
import { MAX_STEPS, MAX_STEP_WAIT_MS, stepsParam } from './steps.js';

export const OPERATIONS = ['screenshot', 'pdf', 'scrape', 'screencast'] as const;
export type Operation = (typeof OPERATIONS)[number];

const ALL: Operation[] = ['screenshot', 'pdf', 'scrape', 'screencast'];
const VISUAL: Operation[] = ['screenshot', 'pdf'];
/** Operations that show the page (html input is rendered, not read). */
const SHOWN: Operation[] = [...VISUAL, 'screencast'];
/** Everything but a screencast, which records the viewport as it is. */
const STILL: Operation[] = ['screenshot', 'pdf', 'scrape'];
const SCREENSHOT: Operation[] = ['screenshot'];

export const SCREENSHOT_FORMATS = ['jpeg', 'jpg', 'png', 'webp', 'gif'] as const;
export const SCRAPE_FORMATS = ['html', 'md'] as const;
export const PAPER_FORMATS = ['letter', 'legal', 'tabloid', 'ledger', 'a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6'] as const;
export const WAIT_UNTIL = ['load', 'domcontentloaded', 'networkidle0', 'networkidle2'] as const;
export const BLOCK_ANNOYANCE = ['none', 'cookies_banner', 'ads', 'tracking'] as const;
export const RESOURCE_TYPES = [
  'document',
  'stylesheet',
  'image',
  'media',
  'font',
  'script',
  'texttrack',
  'xhr',
  'fetch',
  'eventsource',
  'websocket',
  'manifest',
  'other',
] as const;
export const MEDIA_TYPES = ['screen', 'print'] as const;
export const VISION_DEFICIENCIES = ['reduced_contrast', 'blurred_vision', 'deuteranopia', 'achromatopsia'] as const;
export const IP_LOCATIONS = ['us', 'cn', 'eu', 'ca', 'mx', 'gb', 'de', 'fr', 'ch', 'in', 'jp', 'kr', 'ru', 'br', 'au'] as const;

export interface ParameterDef {
  operations: Operation[];
  schema: z.ZodType;
  /** What the parameter does, for the API reference (GET /openapi.json). */
  description: string;
  /** The value used when the parameter is absent (applied by validateRenderParams and documented). */
  default?: unknown;
  /** Problems are named by their place inside the value (`steps[2].selector`), not by the parameter alone. */
  namesPlaces?: boolean;
}

const VIEWPORT_SIZE = { min: 1, max: 7_680, int: true } as const;
const IMAGE_SIZE = { min: 1, max: 10_000, int: true } as const;
const CLIP_SIZE = { min: 1, max: 16_384 } as const;

/**
 * Every parameter the service accepts, with the operations that take it. A parameter is listed here
 * only once the renderer carries it out (anything else is refused as unknown). The schema validates
 * it, and the same entry describes it in the API reference.
 */
export const PARAMETERS: Record<string, ParameterDef> = {
  url: { operations: ALL, schema: absoluteUrl, description: 'Address of the page to render (http or https, reachable from the internet).' },
  html: { operations: SHOWN, schema: stringParam({ max: 5_000_000 }), description: 'Raw HTML to render instead of url (give one of the two).' },
  format: { operations: ['screenshot', 'scrape', 'screencast'], schema: z.string() /* per operation below */, description: 'Output format.' },

  // screenshot
  image_quality: {
    operations: SCREENSHOT,
    schema: numberParam({ min: 1, max: 100, int: true }),
    description: 'Quality of jpeg and webp images.',
    default: DEFAULT_IMAGE_QUALITY,
  },
  image_width: {
    operations: SCREENSHOT,
    schema: numberOrUnsetParam(IMAGE_SIZE),
    description: 'Thumbnail: scale the image to fit this width, keeping the aspect ratio. 0 means not set.',
  },
  image_height: {
    operations: SCREENSHOT,
    schema: numberOrUnsetParam(IMAGE_SIZE),
    description: 'Thumbnail: scale the image to fit this height, keeping the aspect ratio. 0 means not set.',
  },
  omit_background: {
    operations: SCREENSHOT,
    schema: boolParam(),
    description: 'Transparent background where the page defines none (png and webp only).',
    default: false,
  },
  full_page: { operations: SCREENSHOT, schema: boolParam(), description: 'Capture the whole page, not only the viewport.', default: false },
  full_page_scroll: {
    operations: SCREENSHOT,
    schema: boolParam(),
    description: 'Scroll through the page before a full-page capture (loads content that appears on scroll).',
    default: false,
  },
  full_page_scroll_by_amount: {
    operations: SCREENSHOT,
    schema: numberParam({ min: 1, max: 100_000, int: true }),
    description: 'Pixels per scroll step (needs full_page_scroll=true); default: one viewport height.',
  },
  full_page_scroll_by_duration: {
    operations: SCREENSHOT,
    schema: numberParam({ min: 0, max: 10_000, int: true }),
    description: 'Milliseconds per scroll step (needs full_page_scroll=true).',
    default: 400,
  },
  full_page_max_height: {
    operations: SCREENSHOT,
    schema: numberParam({ min: 1, max: FULL_PAGE_MAX_HEIGHT.max, int: true }),
    description: `A full-page capture (full_page or full_page_scroll) stops at this height in CSS pixels, at most ${FULL_PAGE_MAX_HEIGHT.max}; lazy images above it are loaded first.`,
    default: FULL_PAGE_MAX_HEIGHT.default,
  },
  selector: {
    operations: SCREENSHOT,
    schema: selector,
    description:
      'CSS selector: capture only the first matching element, scrolled into view, whole even where it is larger than the viewport. No match: 400 selector_not_found (see error_on_selector_not_found). Not with full_page or clip_*.',
  },
  error_on_selector_not_found: {
    operations: SCREENSHOT,
    schema: boolParam(),
    description: 'When selector matches no visible element: true answers 400 selector_not_found, false captures the viewport instead.',
    default: true,
  },
  metadata_image_size: {
    operations: SCREENSHOT,
    schema: boolParam(),
    description: 'Add X-Service-Metadata-Image-Size: WIDTHxHEIGHT of the returned image.',
    default: false,
  },

  // screenshot and pdf
  clip_x: { operations: VISUAL, schema: numberParam({ min: 0, max: 100_000 }), description: 'Left of the clipped region in CSS pixels (default 0).' },
  clip_y: { operations: VISUAL, schema: numberParam({ min: 0, max: 100_000 }), description: 'Top of the clipped region in CSS pixels (default 0).' },
  clip_width: {
    operations: VISUAL,
    schema: numberOrUnsetParam(CLIP_SIZE),
    description: 'Width of the clipped region (with clip_height). 0 means not set.',
  },
  clip_height: {
    operations: VISUAL,
    schema: numberOrUnsetParam(CLIP_SIZE),
    description: 'Height of the clipped region (with clip_width). 0 means not set.',
  },

  // every operation (scrape reads the content after them)
  hide_selectors: {
    operations: ALL,
    schema: listParam(selector, (s) => splitTopLevel(s, ',')),
    description: 'CSS selectors of elements taken out of the result (hidden in images and PDFs, removed from scraped content). A list or one comma-separated string.',
  },
  click_selector: { operations: ALL, schema: selector, description: 'CSS selector of an element clicked before the result is produced.' },
  wait_for_selector: {
    operations: ALL,
    schema: selector,
    description: 'CSS selector: after the page loaded (and styles and scripts ran), wait until an element matching it is visible, within timeout; when none comes, 500 render_timeout naming the selector.',
  },
  steps: {
    operations: ALL,
    schema: stepsParam(),
    namesPlaces: true,
    description: `Browser steps run in order once the page loaded, before everything else that prepares the page (at most ${MAX_STEPS}): goto {url}, click {selector}, type {selector, text | secret}, press {key}, select {selector, value}, check {selector}, hover {selector}, scroll_to {selector}, wait_for_selector {selector}, wait {ms <= ${MAX_STEP_WAIT_MS}}. A step with optional: true is skipped when its element is absent. Each is bounded by what is left of timeout; a failing step is answered naming steps[i]. A JSON array (a JSON string in a query).`,
  },
  styles: {
    operations: SHOWN,
    schema: pageCode(),
    description: `CSS added to the page after it loaded (at most ${PAGE_CODE_MAX_BYTES} bytes). What it loads passes the same address checks as the page.`,
  },
  scripts: {
    operations: ALL,
    schema: pageCode(),
    description: `JavaScript run in the page after it loaded, before waiting, clicking and the capture (at most ${PAGE_CODE_MAX_BYTES} bytes); a returned promise is awaited within timeout. What it fetches passes the same address checks as the page.`,
  },

  // pdf
  pdf_paper_format: { operations: ['pdf'], schema: enumParam(PAPER_FORMATS), description: 'Paper size.', default: 'letter' },
  pdf_landscape: { operations: ['pdf'], schema: boolParam(), description: 'Landscape orientation.', default: false },
  pdf_print_background: { operations: ['pdf'], schema: boolParam(), description: 'Print background colours and images.', default: false },
  ...PDF_PARAMETERS,

  // scrape
  js_enabled: { operations: ['scrape'], schema: boolParam(), description: "Run the page's scripts before reading its content.", default: true },

  // common
  gpu_rendering: { operations: ALL, schema: boolParam(), description: 'Render with a GPU where one is available (Scale plan only).', default: false },
  capture_beyond_viewport: {
    operations: STILL,
    schema: boolParam(),
    description: 'Capture content beyond the viewport (a clip outside it, for example).',
    default: false,
  },
  viewport_device: {
    operations: ALL,
    schema: z.enum(DEVICE_NAMES, { error: 'must be a device name from GET /v1/devices' }).transform(canonicalDeviceId),
    description:
      'Emulate a device: its viewport, scale factor, touch, mobile mode and user agent (GET /v1/devices lists them). ScreenshotMAX spellings such as galaxy_s9plus are accepted. Explicit viewport_* parameters override the device.',
  },
  viewport_width: {
    operations: ALL,
    schema: numberOrUnsetParam(VIEWPORT_SIZE),
    description: `Viewport width in CSS pixels (default ${DEFAULT_VIEWPORT.width}, or the device's). 0 means not set.`,
    default: DEFAULT_VIEWPORT.width,
  },
  viewport_height: {
    operations: ALL,
    schema: numberOrUnsetParam(VIEWPORT_SIZE),
    description: `Viewport height in CSS pixels (default ${DEFAULT_VIEWPORT.height}, or the device's). 0 means not set.`,
    default: DEFAULT_VIEWPORT.height,
  },
  viewport_landscape: { operations: ALL, schema: boolParam(), description: 'Landscape viewport.' },
  viewport_has_touch: { operations: ALL, schema: boolParam(), description: 'The page sees a touch screen.' },
  viewport_mobile: { operations: ALL, schema: boolParam(), description: 'Mobile mode (meta viewport is honoured).' },
  device_scale_factor: { operations: ALL, schema: numberParam({ min: 0.1, max: 5 }), description: 'Device pixel ratio.' },
  block_annoyance: {
    operations: ALL,
    schema: enumParam(BLOCK_ANNOYANCE),
    description: 'What to keep off the page: cookie banners, ads, trackers, or none of them.',
    default: 'cookies_banner',
  },
  block_ressources: {
    operations: ALL,
    schema: listParam(enumParam(RESOURCE_TYPES), ',', { maxItems: RESOURCE_TYPES.length * 2 }),
    description: 'Resource types the page may not load (spelled with a double s). A list or one comma-separated string.',
  },
  media_type: { operations: ALL, schema: enumParam(MEDIA_TYPES), description: 'CSS media type emulated.', default: 'screen' },
  vision_deficiency: { operations: ALL, schema: enumParam(VISION_DEFICIENCIES), description: 'Emulate a vision deficiency.' },
  dark_mode: { operations: ALL, schema: boolParam(), description: 'prefers-color-scheme: dark.', default: false },
  reduced_motion: { operations: ALL, schema: boolParam(), description: 'prefers-reduced-motion: reduce.', default: false },
  geolocation_accuracy: {
    operations: ALL,
    schema: numberParam({ min: 0, max: 1_000 }),
    description: 'Accuracy of the emulated position in metres (needs latitude and longitude).',
  },
  geolocation_latitude: { operations: ALL, schema: numberParam({ min: -90, max: 90 }), description: 'Latitude of the emulated position (with longitude).' },
  geolocation_longitude: {
    operations: ALL,
    schema: numberParam({ min: -180, max: 180 }),
    description: 'Longitude of the emulated position (with latitude).',
  },
  attachment_name: {
    operations: ALL,
    schema: attachmentName,
    description:
      'Download name without extension, any Unicode text: Content-Disposition becomes attachment; filename="NAME.EXT" (an ASCII fallback) with filename*=UTF-8\'\'… (the exact name). No quotes, slashes, backslashes or control characters.',
  },
  timezone: { operations: ALL, schema: timezone, description: 'IANA time zone the page sees, such as Europe/Paris.' },
  authorization: {
    operations: ALL,
    schema: stringParam({ max: 4_096 }).refine((v) => /^[A-Za-z0-9+/]+={0,2}$/.test(v), {
      error: 'must be base64-encoded credentials (user:password for basic authentication)',
    }),
    description: 'Base64 of user:password, sent as basic authentication to the origin of url only.',
  },
  user_agent: {
    operations: ALL,
    schema: stringParam({ max: 1_000 }).refine((v) => PRINTABLE_ASCII.test(v), { error: 'must be printable ASCII' }),
    description: 'User agent the browser sends and the page sees.',
  },
  cookies: {
    operations: ALL,
    schema: listParam(cookiePair, splitCookiePairs),
    description: 'Cookies set for url, name=value each: a list, or one string separated by semicolons or by commas (a comma starts a new cookie where name= follows it).',
  },
  headers: {
    operations: ALL,
    schema: listParam(headerPair, splitHeaderPairs),
    description: 'Extra request headers, Name: value each: a list, or one string separated by semicolons or by commas (a comma starts a new header where Name: follows it).',
  },
  ip_location: { operations: ALL, schema: enumParam(IP_LOCATIONS), description: 'Load the page through a proxy in this country (Scale plan only).' },
  proxy: { operations: ALL, schema: proxyUrl, description: 'Your own proxy: http://user:password@host:port or https://user:password@host:port.' },
  bypass_csp: { operations: ALL, schema: boolParam(), description: "Ignore the page's Content-Security-Policy.", default: false },
  delay: { operations: ALL, schema: numberParam({ min: 0, max: 30 }), description: 'Seconds to wait after the page is ready, before the result is produced.', default: 0 },
  timeout: {
    operations: ALL,
    schema: numberOrUnsetParam({ min: 1, max: 30 }),
    description: 'Seconds the whole render may take; past it the answer is 500 render_timeout. 0 means not set.',
    default: DEFAULT_TIMEOUT_SECONDS,
  },
  wait_until: {
    operations: ALL,
    schema: listParam(enumParam(WAIT_UNTIL), ','),
    description: 'Events awaited before the page counts as ready. A list or one comma-separated string.',
    default: ['domcontentloaded'],
  },
  metadata_icon: { operations: ALL, schema: boolParam(), description: 'Add X-Service-Metadata-Icon: absolute URL of the page icon.', default: false },
  metadata_title: { operations: ALL, schema: boolParam(), description: 'Add X-Service-Metadata-Title: the page title, percent-encoded.', default: false },
  metadata_fonts: {
    operations: ALL,
    schema: boolParam(),
    description: 'Add X-Service-Metadata-Fonts: font families used, percent-encoded and comma-separated.',
    default: false,
  },
  metadata_hash: { operations: ALL, schema: boolParam(), description: 'Add X-Service-Metadata-Hash: SHA-256 of the returned body.', default: false },
  metadata_status: { operations: ALL, schema: boolParam(), description: "Add X-Service-Metadata-Status: the page's HTTP status.", default: false },
  metadata_headers: {
    operations: ALL,
    schema: boolParam(),
    description: "Add X-Service-Metadata-Headers: the page's response headers as JSON.",
    default: false,
  },

  // honest failures: a page the caller does not want fails (and is not charged)
  ...FAILURE_PARAMETERS,

  // screencast
  ...SCREENCAST_PARAMETERS,

  // kept with the result
  cache: { operations: ALL, schema: boolParam(), description: 'Keep the result and answer the same request from it (X-Service-Cache: HIT or MISS).', default: false },
  cache_ttl: {
    operations: ALL,
    schema: numberParam({ min: 1, max: 2_592_000, int: true }),
    description: 'Seconds the cached result is kept.',
    default: 604_800,
  },
  async: { operations: ALL, schema: boolParam(), description: 'Answer 202 at once; follow the render at GET /v1/renders/{id} or by webhook.', default: false },
  webhook_url: { operations: ALL, schema: webhookUrl, description: 'HTTPS address that receives a POST when an async render finishes.' },
  webhook_signed: { operations: ALL, schema: boolParam(), description: 'Sign the webhook with the secret key.', default: true },
};

/** `format` differs per operation: its schema and default. */
export const FORMAT_BY_OPERATION: Record<Operation, { schema: z.ZodType; default: string; description: string } | undefined> = {
  screenshot: { schema: enumParam(SCREENSHOT_FORMATS), default: 'jpeg', description: 'Image format (jpg is jpeg).' },
  scrape: { schema: enumParam(SCRAPE_FORMATS), default: 'html', description: 'html returns the HTML of the page, md returns Markdown.' },
  pdf: undefined,
  screencast: { schema: enumParam(SCREENCAST_FORMATS), default: 'mp4', description: 'Video format: mp4 and mov (H.264), webm (VP9), avi (MPEG-4).' },
};

/** `jpg` is another spelling of `jpeg`; validation stores the one name. */
export const canonicalFormat = (format: string): string => (format === 'jpg' ? 'jpeg' : format);

/** The output format of a render (named in statuses, webhooks and file names): pdf, or `format` or its default. */
export function formatOf(operation: string, params: { format?: string | undefined }): string {
  const byOperation = (FORMAT_BY_OPERATION as Partial<Record<string, { default: string }>>)[operation];
  if (!byOperation) return operation;
  return canonicalFormat(params.format || byOperation.default);
}

/** Parameters that identify the caller, never render parameters (a task runs with its account's identity). */
export const CALLER_PARAMETERS = ['access_key', 'signature'] as const;
