import sharp from 'sharp';
import type { Monitor } from '../domain/monitor/monitor.js';

const decoder = new TextDecoder();

/**
 * Whether a run's compared form shows nothing: text mode, no text at all; visual mode, an image of one
 * colour (a blank page). Such a page is a failed run, never compared nor a baseline: an empty 200 is how
 * many sites answer while they are down or half-loaded.
 */
export async function isEmptyPage(monitor: Pick<Monitor, 'mode'>, compared: Uint8Array): Promise<boolean> {
  if (monitor.mode === 'text') return decoder.decode(compared).trim() === '';
  try {
    const { channels } = await sharp(compared).stats();
    return channels.every((c) => c.min === c.max);
  } catch {
    return false; // not an image sharp reads: compared (and failed) as before
  }
}
