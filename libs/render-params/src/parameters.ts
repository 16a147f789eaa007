import { z } from 'zod';
import { boolParam, enumParam, listParam, numberParam, stringParam } from './coerce.js';

export const OPERATIONS = ['screenshot', 'pdf', 'scrape'] as const;
export type Operation = (typeof OPERATIONS)[number];

const ALL: Operation[] = ['screenshot', 'pdf', 'scrape'];
const VISUAL: Operation[] = ['screenshot', 'pdf'];

export const SCREENSHOT_FORMATS = ['jpeg', 'jpg', 'png', 'webp'] as const;
export const SCRAPE_FORMATS = ['html', 'md'] as const;
export const PAPER_FORMATS = ['letter', 'legal', 'tabloid', 'ledger', 'a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6'] as const;
export const WAIT_UNTIL = ['load', 'domcontentloaded', 'networkidle0', 'networkidle2'] as const;

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
  image_quality: { operations: ['screenshot'], schema: numberParam({ min: 1, max: 100, int: true }) },
  full_page: { operations: ['screenshot'], schema: boolParam() },
  pdf_paper_format: { operations: ['pdf'], schema: enumParam(PAPER_FORMATS) },
  pdf_landscape: { operations: ['pdf'], schema: boolParam() },
  pdf_print_background: { operations: ['pdf'], schema: boolParam() },
  viewport_width: { operations: ALL, schema: numberParam({ min: 1, max: 7_680, int: true }) },
  viewport_height: { operations: ALL, schema: numberParam({ min: 1, max: 7_680, int: true }) },
  device_scale_factor: { operations: ALL, schema: numberParam({ min: 0.1, max: 5 }) },
  attachment_name: {
    operations: ALL,
    schema: stringParam({ max: 200 }).refine((v) => !/["\\/\r\n\u0000-\u001f]/.test(v), {
      error: 'must not contain quotes, slashes or control characters',
    }),
  },
  delay: { operations: ALL, schema: numberParam({ min: 0, max: 30 }) },
  timeout: { operations: ALL, schema: numberParam({ min: 1, max: 30 }) },
  wait_until: { operations: ALL, schema: listParam(enumParam(WAIT_UNTIL), ',') },
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
