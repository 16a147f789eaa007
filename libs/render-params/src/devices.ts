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
  /** Puppeteer's name. */
  name: string;
  userAgent: string;
  viewport: DeviceViewport;
}

/** `iPhone 13 Pro Max` → `iphone_13_pro_max`, `Pixel 4a (5G)` → `pixel_4a_5g`. */
export function deviceId(name: string): string {
  return name.toLowerCase().replace(/[()]/g, '').trim().replace(/\s+/g, '_');
}

/** Every device `viewport_device` accepts, by id (the renderer and GET /v1/devices share it). */
export const DEVICES: ReadonlyMap<string, Device> = new Map(
  Object.entries(KnownDevices).map(([name, d]): [string, Device] => {
    const id = deviceId(name);
    return [id, { id, name, userAgent: d.userAgent, viewport: { ...d.viewport } as DeviceViewport }];
  }),
);

export const DEVICE_IDS = [...DEVICES.keys()] as [string, ...string[]];

export function deviceById(id: string | undefined): Device | undefined {
  return id === undefined ? undefined : DEVICES.get(id);
}
