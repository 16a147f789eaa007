/** Headers that describe one connection (RFC 9110 §7.6.1), never forwarded by a proxy. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * The end-to-end part of a raw header list (`[name, value, name, value, …]` as `rawHeaders` gives it):
 * drops hop-by-hop headers, headers the Connection header names, and any name in `drop` (lower case).
 */
export function endToEndHeaders(rawHeaders: readonly string[], drop: readonly string[] = []): string[] {
  const excluded = new Set([...HOP_BY_HOP, ...drop]);
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() !== 'connection') continue;
    for (const token of rawHeaders[i + 1]!.split(',')) excluded.add(token.trim().toLowerCase());
  }
  const kept: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (!excluded.has(name.toLowerCase())) kept.push(name, rawHeaders[i + 1]!);
  }
  return kept;
}
