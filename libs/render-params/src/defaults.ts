/**
 * The render defaults every service relies on, stated once. The parameter table (parameters.ts) declares
 * them as each parameter's default, validation fills them in, and the services read them from here when
 * they need the value itself (a deadline, a viewport before the page exists).
 */

/** `timeout` when not given (seconds): the whole render's budget. */
export const DEFAULT_TIMEOUT_SECONDS = 30;

/** The viewport without a device and without viewport_* (CSS pixels). */
export const DEFAULT_VIEWPORT = { width: 1280, height: 1080 } as const;

/** `image_quality` of jpeg and webp when not given. */
export const DEFAULT_IMAGE_QUALITY = 80;

/** The render's budget in seconds: `timeout`, or the default when it is absent or 0 (0 means not set). */
export function timeoutSecondsOf(params: { timeout?: number | undefined }): number {
  return params.timeout || DEFAULT_TIMEOUT_SECONDS;
}
