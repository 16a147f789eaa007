import type { Page } from 'puppeteer-core';

export interface GpuSupport {
  /** The deployment launches its browsers with GPU flags (RENDERER_GPU). */
  enabled: boolean;
}

const SOFTWARE_RENDERERS = /swiftshader|llvmpipe|software|basic render/i;

let probed: Promise<boolean> | undefined;

/**
 * Whether the browser really composites on a GPU: GPU flags on, the compositing feature enabled and a
 * hardware device (not SwiftShader/llvmpipe). Asked once per process (every browser has the same flags).
 */
export function gpuAvailable(page: Page, support: GpuSupport): Promise<boolean> {
  if (!support.enabled) return Promise.resolve(false);
  probed ??= (async () => {
    const session = await page.browser().target().createCDPSession();
    try {
      const info = (await session.send('SystemInfo.getInfo')) as {
        gpu: { devices: Array<{ vendorString: string; deviceString: string }>; featureStatus: Record<string, string> };
      };
      const compositing = info.gpu.featureStatus['gpu_compositing'] ?? '';
      const hardware = info.gpu.devices.some((d) => d.deviceString !== '' && !SOFTWARE_RENDERERS.test(`${d.vendorString} ${d.deviceString}`));
      return compositing.startsWith('enabled') && hardware;
    } finally {
      await session.detach().catch(() => undefined);
    }
  })().catch(() => false);
  return probed;
}

/** X-Service-Gpu, when gpu_rendering was asked for: `enabled`, or `unavailable` (rendered in software). */
export async function gpuHeader(page: Page, wanted: boolean | undefined, support: GpuSupport): Promise<Record<string, string>> {
  if (!wanted) return {};
  return { 'X-Service-Gpu': (await gpuAvailable(page, support)) ? 'enabled' : 'unavailable' };
}
