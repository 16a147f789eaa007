export interface ProxyTarget {
  /** WHATWG-canonical host name or IP (IPv6 in brackets). */
  hostname: string;
  port: number;
}

const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\//i;
const AUTHORITY_FORM = /^(\[[0-9a-f:.]+\]|[^\s:[\]/\\@?#]+):(\d{1,5})$/i;

/** The URL of a proxy request in absolute form (`GET http://host/path`); undefined for any other form. */
export function parseAbsoluteForm(requestTarget: string): URL | undefined {
  if (!ABSOLUTE_FORM.test(requestTarget)) return undefined;
  try {
    const url = new URL(requestTarget);
    return url.hostname === '' ? undefined : url;
  } catch {
    return undefined;
  }
}

export function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/**
 * The target of `CONNECT host:port`, with the host canonicalised exactly as a URL host would be
 * (so `2130706433`, `0x7f.1` or `127.1` become `127.0.0.1` before any check).
 */
export function parseConnectAuthority(authority: string): ProxyTarget | undefined {
  const match = AUTHORITY_FORM.exec(authority);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return undefined;
  try {
    const hostname = new URL(`http://${match[1]}/`).hostname;
    return hostname === '' ? undefined : { hostname, port };
  } catch {
    return undefined;
  }
}
