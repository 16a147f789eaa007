import type { PageSetupStep } from './step.js';

/**
 * geolocation_*: the position the page reads. The permission is granted to the page's origin (url);
 * a raw html page has no origin to grant it to and gets the browser's refusal.
 */
export const geolocationStep: PageSetupStep = (page, params) => {
  const { geolocation_latitude: latitude, geolocation_longitude: longitude } = params;
  if (latitude === undefined || longitude === undefined) return undefined;
  const grant = params.url ? page.browserContext().overridePermissions(new URL(params.url).origin, ['geolocation']) : undefined;
  return Promise.all([grant, page.setGeolocation({ latitude, longitude, accuracy: params.geolocation_accuracy ?? 0 })]);
};
