import { createHash } from 'node:crypto';
import type { Page } from 'puppeteer-core';
import type { RenderParams } from '@app/proto/render';
import { usedFonts } from './fonts.js';
import { imageSize } from './image-size.js';
import type { Navigation } from './navigate.js';
import type { Artifact, RenderOperation } from './types.js';

export interface MetadataInput {
  page: Page;
  params: RenderParams;
  operation: RenderOperation;
  navigation: Navigation;
  artifact: Artifact;
}

/** One X-Service-Metadata-* header: computed only when its parameter is true; undefined leaves it out. */
interface MetadataHeader {
  header: string;
  wanted(params: RenderParams, operation: RenderOperation): boolean;
  value(input: MetadataInput): Promise<string | undefined> | string | undefined;
}

/** Runs in the page: the declared icon, else /favicon.ico of an http(s) page. */
const FIND_ICON = `(() => {
  const link = document.querySelector('link[rel~="icon" i]');
  if (link && link.href) return link.href;
  return location.protocol.startsWith('http') ? new URL('/favicon.ico', location.href).href : undefined;
})()`;

export const METADATA_HEADERS: readonly MetadataHeader[] = [
  {
    header: 'X-Service-Metadata-Status',
    wanted: (p) => !!p.metadata_status,
    value: ({ navigation }) => navigation.status?.toString(),
  },
  {
    header: 'X-Service-Metadata-Title',
    wanted: (p) => !!p.metadata_title,
    value: async ({ page }) => encodeURIComponent(await page.title()),
  },
  {
    header: 'X-Service-Metadata-Fonts',
    wanted: (p) => !!p.metadata_fonts,
    value: async ({ page }) => (await usedFonts(page)).map(encodeURIComponent).join(','),
  },
  {
    header: 'X-Service-Metadata-Hash',
    wanted: (p) => !!p.metadata_hash,
    value: ({ artifact }) => createHash('sha256').update(artifact.body).digest('hex'),
  },
  {
    header: 'X-Service-Metadata-Image-Size',
    wanted: (p, op) => op === 'screenshot' && !!p.metadata_image_size,
    value: ({ artifact }) => {
      const size = imageSize(artifact.body);
      return size && `${size.width}x${size.height}`;
    },
  },
  {
    header: 'X-Service-Metadata-Headers',
    wanted: (p) => !!p.metadata_headers,
    value: ({ navigation }) => navigation.response && asciiJson(navigation.response.headers()),
  },
  {
    header: 'X-Service-Metadata-Icon',
    wanted: (p) => !!p.metadata_icon,
    value: ({ page }) => page.evaluate(FIND_ICON) as Promise<string | undefined>,
  },
];

export async function metadataHeaders(input: MetadataInput): Promise<Record<string, string>> {
  const wanted = METADATA_HEADERS.filter((m) => m.wanted(input.params, input.operation));
  if (wanted.length === 0) return {};
  const values = await Promise.all(wanted.map((m) => m.value(input)));
  const headers: Record<string, string> = {};
  wanted.forEach((m, i) => {
    const value = values[i];
    if (value !== undefined && value !== '') headers[m.header] = value;
  });
  return headers;
}

/** JSON with every non-ASCII character escaped, so it is a valid HTTP header value. */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
