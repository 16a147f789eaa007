import { KnownDevices } from 'puppeteer-core/internal/common/Device.js';

export interface DeviceViewport {
  width: number;
  height: number;
  deviceScaleFactor: number;
  isMobile: boolean;
  hasTouch: boolean;
  isLandscape: boolean;
}

export interface Device {
  /** The `viewport_device` value: Puppeteer's name lowercased, spaces as `_`, parentheses dropped. */
  id: string;
  /** The same name in ScreenshotMAX's spelling (`+` written `plus`), accepted too. */
  screenshotmaxId: string;
  /** Puppeteer's name. */
  name: string;
  userAgent: string;
  viewport: DeviceViewport;
}

/** `iPhone 13 Pro Max` → `iphone_13_pro_max`, `Pixel 4a (5G)` → `pixel_4a_5g`. */
export function deviceId(name: string): string {
  return name.toLowerCase().replace(/[()]/g, '').trim().replace(/\s+/g, '_');
}

/** `galaxy_s9+` → `galaxy_s9plus` (ScreenshotMAX's spelling of the same device). */
export const screenshotmaxDeviceId = (id: string): string => id.replace(/\+/g, 'plus');

/** Every device `viewport_device` accepts, by id (the renderer and GET /v1/devices share it). */
export const DEVICES: ReadonlyMap<string, Device> = new Map(
  Object.entries(KnownDevices).map(([name, d]): [string, Device] => {
    const id = deviceId(name);
    const device = { id, screenshotmaxId: screenshotmaxDeviceId(id), name, userAgent: d.userAgent, viewport: { ...d.viewport } as DeviceViewport };
    return [id, device];
  }),
);

/** Every accepted `viewport_device` value → the device id: ours and ScreenshotMAX's spelling. */
const BY_ANY_NAME: ReadonlyMap<string, string> = new Map(
  [...DEVICES.values()].flatMap((d) => [[d.id, d.id] as const, [d.screenshotmaxId, d.id] as const]),
);

/** Every value `viewport_device` accepts (both spellings). */
export const DEVICE_NAMES = [...BY_ANY_NAME.keys()] as [string, ...string[]];
export const DEVICE_IDS = [...DEVICES.keys()] as [string, ...string[]];

/** The device id for an accepted `viewport_device` value (either spelling). */
export const canonicalDeviceId = (name: string): string => BY_ANY_NAME.get(name) ?? name;

export function deviceById(id: string | undefined): Device | undefined {
  return id === undefined ? undefined : DEVICES.get(canonicalDeviceId(id));
}
