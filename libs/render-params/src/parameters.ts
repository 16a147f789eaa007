import { z } from 'zod';
import { boolParam, enumParam, listParam, numberParam, splitHeaderPairs, splitTopLevel, stringParam } from './coerce.js';
import { DEVICE_IDS } from './devices.js';

export const OPERATIONS = ['screenshot', 'pdf', 'scrape'] as const;
export type Operation = (typeof OPERATIONS)[number];

const ALL: Operation[] = ['screenshot', 'pdf', 'scrape'];
const VISUAL: Operation[] = ['screenshot', 'pdf'];
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

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the browser manages itself; setting them would break the request. */
const FORBIDDEN_HEADERS = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
]);

// Syntax only: which schemes and addresses may be loaded is the SSRF guard's decision
// (@app/net-guard), answered with target_not_allowed.
const absoluteUrl = z
  .string({ error: 'must be a string' })
  .max(8_192, { error: 'must be at most 8192 characters' })
  .refine((v) => URL.canParse(v), { error: 'must be an absolute URL' });

// Scheme and address (https, public) are the edge's SSRF guard's decision, answered with target_not_allowed.
const webhookUrl = absoluteUrl.refine(
  (v) => {
    if (!URL.canParse(v)) return true; // reported by absoluteUrl
    const u = new URL(v);
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.username === '' && u.password === '';
  },
  { error: 'must be an https URL without credentials' },
);

/** `http://user:password@host:port` or `https://…`; whether the host may be used is the renderer's SSRF check. */
const proxyUrl = stringParam({ max: 2_048 }).refine(
  (v) => {
    if (!URL.canParse(v)) return false;
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '' && (u.pathname === '/' || u.pathname === '') && !u.search && !u.hash;
  },
  { error: 'must look like http://user:password@host:port or https://user:password@host:port' },
);

const headerPair = z.string().refine(
  (pair) => {
    const colon = pair.indexOf(':');
    if (colon <= 0) return false;
    const name = pair.slice(0, colon).trim();
    const value = pair.slice(colon + 1).trim();
    return TOKEN.test(name) && !FORBIDDEN_HEADERS.has(name.toLowerCase()) && PRINTABLE_ASCII.test(value) && pair.length <= 8_192;
  },
  { error: 'must be name:value pairs with a valid header name (not Host, Content-Length or a hop-by-hop header) and a printable value' },
);

const cookiePair = z.string().refine(
  (pair) => {
    const eq = pair.indexOf('=');
    if (eq <= 0) return false;
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    return TOKEN.test(name) && PRINTABLE_ASCII.test(value) && !value.includes(';') && pair.length <= 4_096;
  },
  { error: 'must be name=value pairs with a valid cookie name and a printable value' },
);

const timezone = stringParam({ max: 100 }).refine(
  (tz) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz });
      return tz.includes('/') || tz === 'UTC';
    } catch {
      return false;
    }
  },
  { error: 'must be an IANA time zone name such as Europe/Paris' },
);

const selector = stringParam({ max: 1_000 });

interface ParameterDef {
  operations: Operation[];
  schema: z.ZodType;
}

/**
 * Every parameter the service accepts, with the operations that take it. A parameter is listed here
 * only once the renderer carries it out (anything else is refused as unknown).
 */
export const PARAMETERS: Record<string, ParameterDef> = {
  url: { operations: ALL, schema: absoluteUrl },
  html: { operations: VISUAL, schema: stringParam({ max: 5_000_000 }) },
  format: { operations: ['screenshot', 'scrape'], schema: z.string() /* per operation below */ },

  // screenshot
  image_quality: { operations: SCREENSHOT, schema: numberParam({ min: 1, max: 100, int: true }) },
  image_width: { operations: SCREENSHOT, schema: numberParam({ min: 1, max: 10_000, int: true }) },
  image_height: { operations: SCREENSHOT, schema: numberParam({ min: 1, max: 10_000, int: true }) },
  omit_background: { operations: SCREENSHOT, schema: boolParam() },
  full_page: { operations: SCREENSHOT, schema: boolParam() },
  full_page_scroll: { operations: SCREENSHOT, schema: boolParam() },
  full_page_scroll_by_amount: { operations: SCREENSHOT, schema: numberParam({ min: 1, max: 100_000, int: true }) },
  full_page_scroll_by_duration: { operations: SCREENSHOT, schema: numberParam({ min: 0, max: 10_000, int: true }) },
  metadata_image_size: { operations: SCREENSHOT, schema: boolParam() },

  // screenshot and pdf
  clip_x: { operations: VISUAL, schema: numberParam({ min: 0, max: 100_000 }) },
  clip_y: { operations: VISUAL, schema: numberParam({ min: 0, max: 100_000 }) },
  clip_width: { operations: VISUAL, schema: numberParam({ min: 1, max: 16_384 }) },
  clip_height: { operations: VISUAL, schema: numberParam({ min: 1, max: 16_384 }) },
  hide_selectors: { operations: VISUAL, schema: listParam(selector, (s) => splitTopLevel(s, ',')) },
  click_selector: { operations: VISUAL, schema: selector },

  // pdf
  pdf_paper_format: { operations: ['pdf'], schema: enumParam(PAPER_FORMATS) },
  pdf_landscape: { operations: ['pdf'], schema: boolParam() },
  pdf_print_background: { operations: ['pdf'], schema: boolParam() },

  // scrape
  js_enabled: { operations: ['scrape'], schema: boolParam() },

  // common
  gpu_rendering: { operations: ALL, schema: boolParam() },
  capture_beyond_viewport: { operations: ALL, schema: boolParam() },
  viewport_device: { operations: ALL, schema: z.enum(DEVICE_IDS, { error: 'must be a device name from GET /v1/devices' }) },
  viewport_width: { operations: ALL, schema: numberParam({ min: 1, max: 7_680, int: true }) },
  viewport_height: { operations: ALL, schema: numberParam({ min: 1, max: 7_680, int: true }) },
  viewport_landscape: { operations: ALL, schema: boolParam() },
  viewport_has_touch: { operations: ALL, schema: boolParam() },
  viewport_mobile: { operations: ALL, schema: boolParam() },
  device_scale_factor: { operations: ALL, schema: numberParam({ min: 0.1, max: 5 }) },
  block_annoyance: { operations: ALL, schema: enumParam(BLOCK_ANNOYANCE) },
  block_ressources: { operations: ALL, schema: listParam(enumParam(RESOURCE_TYPES), ',', { maxItems: RESOURCE_TYPES.length * 2 }) },
  media_type: { operations: ALL, schema: enumParam(MEDIA_TYPES) },
  vision_deficiency: { operations: ALL, schema: enumParam(VISION_DEFICIENCIES) },
  dark_mode: { operations: ALL, schema: boolParam() },
  reduced_motion: { operations: ALL, schema: boolParam() },
  geolocation_accuracy: { operations: ALL, schema: numberParam({ min: 0, max: 1_000 }) },
  geolocation_latitude: { operations: ALL, schema: numberParam({ min: -90, max: 90 }) },
  geolocation_longitude: { operations: ALL, schema: numberParam({ min: -180, max: 180 }) },
  attachment_name: {
    operations: ALL,
    schema: stringParam({ max: 200 }).refine((v) => !/["\\/\r\n\u0000-\u001f\u007f]/.test(v), {
      error: 'must not contain quotes, slashes or control characters',
    }),
  },
  timezone: { operations: ALL, schema: timezone },
  authorization: {
    operations: ALL,
    schema: stringParam({ max: 4_096 }).refine((v) => /^[A-Za-z0-9+/]+={0,2}$/.test(v), {
      error: 'must be base64-encoded credentials (user:password for basic authentication)',
    }),
  },
  user_agent: {
    operations: ALL,
    schema: stringParam({ max: 1_000 }).refine((v) => PRINTABLE_ASCII.test(v), { error: 'must be printable ASCII' }),
  },
  cookies: { operations: ALL, schema: listParam(cookiePair, ';') },
  headers: { operations: ALL, schema: listParam(headerPair, splitHeaderPairs) },
  ip_location: { operations: ALL, schema: enumParam(IP_LOCATIONS) },
  proxy: { operations: ALL, schema: proxyUrl },
  bypass_csp: { operations: ALL, schema: boolParam() },
  delay: { operations: ALL, schema: numberParam({ min: 0, max: 30 }) },
  timeout: { operations: ALL, schema: numberParam({ min: 1, max: 30 }) },
  wait_until: { operations: ALL, schema: listParam(enumParam(WAIT_UNTIL), ',') },
  metadata_icon: { operations: ALL, schema: boolParam() },
  metadata_title: { operations: ALL, schema: boolParam() },
  metadata_fonts: { operations: ALL, schema: boolParam() },
  metadata_hash: { operations: ALL, schema: boolParam() },
  metadata_status: { operations: ALL, schema: boolParam() },
  metadata_headers: { operations: ALL, schema: boolParam() },

  // kept with the result (issue 6)
  cache: { operations: ALL, schema: boolParam() },
  cache_ttl: { operations: ALL, schema: numberParam({ min: 1, max: 2_592_000, int: true }) },
  async: { operations: ALL, schema: boolParam() },
  webhook_url: { operations: ALL, schema: webhookUrl },
  webhook_signed: { operations: ALL, schema: boolParam() },
};

export const FORMAT_BY_OPERATION: Record<Operation, z.ZodType | undefined> = {
  screenshot: enumParam(SCREENSHOT_FORMATS),
  scrape: enumParam(SCRAPE_FORMATS),
  pdf: undefined,
};
