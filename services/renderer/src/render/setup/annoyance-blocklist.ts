import thirdPartyWeb from 'third-party-web';

/**
 * Which third-party requests block_annoyance refuses, from the categorised entity list of
 * `third-party-web` (the data Lighthouse uses; shipped in the npm package, no download). The levels
 * add up: cookies_banner < ads < tracking.
 */
const CATEGORIES: Readonly<Record<string, readonly string[]>> = {
  none: [],
  cookies_banner: ['consent-provider'],
  ads: ['consent-provider', 'ad'],
  tracking: ['consent-provider', 'ad', 'analytics'],
};

export function blockedCategories(level: string | undefined): ReadonlySet<string> {
  return new Set(CATEGORIES[level ?? 'cookies_banner'] ?? CATEGORIES.cookies_banner);
}

function entityOf(url: string) {
  try {
    return thirdPartyWeb.getEntity(url);
  } catch {
    return undefined;
  }
}

/**
 * A matcher for one render: true for a request to a third party of a blocked category. Requests to
 * the page's own entity (e.g. rendering an ad network's own site) are never blocked.
 */
export function annoyanceMatcher(level: string | undefined, pageUrl: string | undefined): ((url: string) => boolean) | undefined {
  const categories = blockedCategories(level);
  if (categories.size === 0) return undefined;
  const pageEntity = pageUrl ? entityOf(pageUrl) : undefined;
  return (url) => {
    const entity = entityOf(url);
    return !!entity && entity !== pageEntity && categories.has(entity.category);
  };
}
