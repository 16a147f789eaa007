/**
 * RFC 8187 ext-value of a UTF-8 string: percent-encoded bytes, with the characters
 * encodeURIComponent leaves alone but attr-char does not allow (' ( ) *) encoded too.
 */
const extValue = (text: string) =>
  `UTF-8''${encodeURIComponent(text).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;

/** An ASCII stand-in for a file name: accents dropped (é → e), any other character beyond ASCII as one `_`. */
const asciiFallback = (name: string) =>
  name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]/gu, '_');

/**
 * Content-Disposition per the decisions: `inline`, or `attachment; filename="NAME.EXT"`; a name beyond
 * ASCII adds its exact form as RFC 6266 `filename*=UTF-8''…` beside the ASCII fallback `filename`.
 * The name was validated (no quotes, backslashes, slashes or control characters), so it needs no escaping.
 */
export function contentDisposition(attachmentName: string | undefined, extension: string): string {
  if (!attachmentName) return 'inline';
  const name = `${attachmentName}.${extension}`;
  const fallback = asciiFallback(name);
  return fallback === name ? `attachment; filename="${name}"` : `attachment; filename="${fallback}"; filename*=${extValue(name)}`;
}
