const decoder = new TextDecoder();

/**
 * Whether a run's compared form shows nothing: text mode, no text at all; visual mode, an image of one
 * colour (a blank page: `isOneColour` of the screenshot as decoded for its comparison). Such a page is a failed
 * run, never compared nor a baseline: an empty 200 is how many sites answer while they are down or
 * half-loaded.
 */
export const isEmptyText = (compared: Uint8Array): boolean => decoder.decode(compared).trim() === '';
