import type { FastifyInstance } from 'fastify';
import { DEVICES, type DeviceViewport } from '@app/render-params';

/**
 * One device as GET /v1/devices lists it: the `viewport_device` value and what it sets, in parameter
 * names, and the same device in ScreenshotMAX's fields (`id` in its spelling, `userAgent`, `viewport`),
 * which its clients read.
 */
export interface DeviceEntry {
  id: string;
  userAgent: string;
  viewport: DeviceViewport;
  viewport_device: string;
  name: string;
  viewport_width: number;
  viewport_height: number;
  device_scale_factor: number;
  viewport_mobile: boolean;
  viewport_has_touch: boolean;
  viewport_landscape: boolean;
  user_agent: string;
}

const LIST: { devices: DeviceEntry[] } = {
  devices: [...DEVICES.values()].map((d) => ({
    id: d.screenshotmaxId,
    userAgent: d.userAgent,
    viewport: { ...d.viewport },
    viewport_device: d.id,
    name: d.name,
    viewport_width: d.viewport.width,
    viewport_height: d.viewport.height,
    device_scale_factor: d.viewport.deviceScaleFactor,
    viewport_mobile: d.viewport.isMobile,
    viewport_has_touch: d.viewport.hasTouch,
    viewport_landscape: d.viewport.isLandscape,
    user_agent: d.userAgent,
  })),
};

/** GET /v1/devices: every value `viewport_device` accepts, with the viewport it gives (decisions: viewport_device). */
export async function devicesRoutes(app: FastifyInstance) {
  app.get('/v1/devices', { config: { usage: 'read' } }, async () => LIST);
}
