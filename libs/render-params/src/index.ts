export * from './parameters.js';
export * from './validate.js';
export { DEVICES, DEVICE_IDS, DEVICE_NAMES, canonicalDeviceId, deviceById, deviceId, type Device, type DeviceViewport } from './devices.js';
export { isTrueParam, splitCookiePairs, splitHeaderPairs, splitTopLevel } from './coerce.js';
export type { RenderParams } from '@app/proto/render';
export * from './screencast.js';
export * from './defaults.js';
export { isIanaTimeZone } from './time-zone.js';
export * from './plan-features.js';
