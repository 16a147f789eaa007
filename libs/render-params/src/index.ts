export * from './parameters.js';
export * from './validate.js';
export { DEVICES, DEVICE_IDS, deviceById, deviceId, type Device, type DeviceViewport } from './devices.js';
export { isTrueParam, splitHeaderPairs, splitTopLevel } from './coerce.js';
export type { RenderParams } from '@app/proto/render';
