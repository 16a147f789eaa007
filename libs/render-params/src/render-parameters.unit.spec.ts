import { describe, expect, it } from 'vitest';
import { ValidationError } from '@app/errors';
import { DEVICES, deviceId } from './devices.js';
import { validateRenderParams } from './validate.js';
import type { Operation } from './parameters.js';

const base: Record<Operation, Record<string, unknown>> = {
  screenshot: { url: 'https://example.com/' },
  pdf: { url: 'https://example.com/' },
  scrape: { url: 'https://example.com/' },
  screencast: { url: 'https://example.com/' },
};

function problemsOf(operation: Operation, input: Record<string, unknown>) {
  try {
    validateRenderParams(operation, { ...base[operation], ...input });
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).details ?? [];
  }
  return [];
}

const named = (operation: Operation, input: Record<string, unknown>) => problemsOf(operation, input).map((p) => p.parameter);

describe('validateRenderParams: every constrained parameter', () => {
  // [operation, parameter, bad values]
  const invalid: Array<[Operation, string, unknown[]]> = [
    ['screenshot', 'format', ['bmp', 'PNG', 1, '']],
    ['scrape', 'format', ['pdf', 'markdown']],
    ['screenshot', 'image_quality', [0, 101, 50.5, 'high']],
    ['screenshot', 'image_width', [-5, 0.5, 10_001, 1.5, 'wide']],
    ['screenshot', 'image_height', [-1, 10_001, 'tall']],
    ['screenshot', 'omit_background', ['yes', 2]],
    ['screenshot', 'full_page', ['maybe']],
    ['screenshot', 'full_page_scroll', ['often']],
    ['screenshot', 'metadata_image_size', [3]],
    ['screenshot', 'clip_x', [-1, 'left']],
    ['pdf', 'clip_y', [-0.5, {}]],
    ['screenshot', 'clip_width', [-1, 0.5, 16_385]],
    ['pdf', 'clip_height', [-1, 'x']],
    ['screenshot', 'hide_selectors', [[], '', [1]]],
    ['pdf', 'click_selector', ['', 5, 'x'.repeat(1_001)]],
    ['pdf', 'pdf_paper_format', ['a7', 'A4', 'b5']],
    ['pdf', 'pdf_landscape', ['sideways']],
    ['pdf', 'pdf_print_background', ['no way']],
    ['scrape', 'js_enabled', ['off']],
    ['screenshot', 'gpu_rendering', ['fast']],
    ['screenshot', 'capture_beyond_viewport', ['all']],
    ['screenshot', 'viewport_device', ['iPhone 13 Pro Max', 'nokia_3310', 7]],
    ['pdf', 'viewport_width', [-1, 7_681, 100.5]],
    ['scrape', 'viewport_height', [-1, 'tall']],
    ['screenshot', 'viewport_landscape', ['x']],
    ['screenshot', 'viewport_has_touch', ['x']],
    ['screenshot', 'viewport_mobile', ['x']],
    ['screenshot', 'device_scale_factor', [0, 5.5, 'retina']],
    ['screenshot', 'block_annoyance', ['all', 'cookies']],
    ['scrape', 'block_ressources', ['images', ['script', 'video'], '']],
    ['pdf', 'media_type', ['tv', 'Print']],
    ['screenshot', 'vision_deficiency', ['protanopia', 'blur']],
    ['screenshot', 'dark_mode', ['night']],
    ['screenshot', 'reduced_motion', ['less']],
    ['screenshot', 'geolocation_accuracy', [-1, 1_001]],
    ['screenshot', 'geolocation_latitude', [-91, 90.5, 'north']],
    ['screenshot', 'geolocation_longitude', [180.1, -181]],
    ['screenshot', 'attachment_name', ['a/b', 'a"b', 'x\ny', '']],
    ['scrape', 'timezone', ['Mars/Olympus', 'PST', '']],
    ['screenshot', 'authorization', ['user:pass', 'a b', '']],
    ['screenshot', 'user_agent', ['bot\nInjected: 1', 'émoji', '']],
    ['screenshot', 'cookies', ['novalue', '=x', 'a b=c', ['ok=1', 'bad']]],
    ['pdf', 'headers', ['NoColon', 'Host: evil', 'bad name: 1', 'X-A: line\r\nbreak', 'Content-Length: 3']],
    ['screenshot', 'ip_location', ['xx', 'US', 'europe']],
    ['screenshot', 'proxy', ['socks5://h:1', 'not a proxy', 'http://h:1/path', 'ftp://h']],
    ['screenshot', 'bypass_csp', ['please']],
    ['screenshot', 'delay', [-1, 31, 'soon']],
    ['screenshot', 'timeout', [-1, 0.5, 31, 'never']],
    ['screenshot', 'wait_until', ['idle', ['load', 'networkidle3']]],
    ['screenshot', 'metadata_icon', ['x']],
    ['pdf', 'metadata_title', ['x']],
    ['scrape', 'metadata_fonts', ['x']],
    ['scrape', 'metadata_hash', ['x']],
    ['scrape', 'metadata_status', ['x']],
    ['scrape', 'metadata_headers', ['x']],
    ['screencast', 'format', ['gif', 'mkv', 'MP4']],
    ['screencast', 'duration', [0, 30.5, -1, 'long']],
    ['screencast', 'scenario', ['zoom', '']],
    ['screencast', 'scroll_by_amount', [0, 1.5, 100_001]],
    ['screencast', 'scroll_by_delay', [-1, 60_001]],
    ['screencast', 'scroll_by_duration', [0, 'slow']],
    ['screencast', 'scroll_back', ['maybe']],
    ['screencast', 'scroll_back_delay', [-5]],
    ['screencast', 'scroll_easing', ['ease_in_sine', 'EASE_IN_QUAD']],
  ];

  describe.each(invalid)('When %s gets a bad %s', (operation, parameter, values) => {
    it.each(values.map((v) => [v]))('should refuse %j in a 400 naming it', (value) => {
      const problems = problemsOf(operation, { [parameter]: value });
      expect(problems.map((p) => p.parameter)).toContain(parameter);
      expect(problems.find((p) => p.parameter === parameter)!.message).toContain(parameter);
    });
  });

  describe('When a parameter belongs to another operation', () => {
    it.each([
      ['pdf', 'format'],
      ['pdf', 'image_quality'],
      ['pdf', 'metadata_image_size'],
      ['scrape', 'clip_x'],
      ['screenshot', 'js_enabled'],
      ['screenshot', 'pdf_paper_format'],
      ['scrape', 'html'],
      ['screencast', 'clip_x'],
      ['screencast', 'metadata_image_size'],
      ['screenshot', 'duration'],
      ['pdf', 'scenario'],
    ] as const)('should refuse %s with %s', (operation, parameter) => {
      expect(named(operation, { [parameter]: 'png' })).toContain(parameter);
    });
  });
});

describe('validateRenderParams: parameters that depend on each other', () => {
  describe('When a clip is incomplete or combined with full_page', () => {
    it('should name the missing or conflicting parameter', () => {
      expect(named('screenshot', { clip_x: 10, clip_width: 20 })).toEqual(['clip_height']);
      expect(named('screenshot', { clip_width: 20, clip_height: 20, full_page: true })).toEqual(['full_page']);
      expect(named('pdf', { clip_width: 20, clip_height: 30 })).toEqual([]);
    });
  });

  describe('When only one coordinate of a geolocation is given', () => {
    it('should name the other', () => {
      expect(named('screenshot', { geolocation_latitude: 48.8 })).toEqual(['geolocation_longitude']);
      expect(named('screenshot', { geolocation_accuracy: 5 })).toEqual(['geolocation_accuracy']);
      expect(named('screenshot', { geolocation_latitude: 48.8, geolocation_longitude: 2.3, geolocation_accuracy: 5 })).toEqual([]);
    });
  });

  describe('When omit_background is asked for an opaque format', () => {
    it('should refuse jpeg and accept png', () => {
      expect(named('screenshot', { omit_background: true })).toEqual(['omit_background']);
      expect(named('screenshot', { omit_background: true, format: 'png' })).toEqual([]);
    });
  });

  describe('When proxy and ip_location are both given, or cookies without url', () => {
    it('should name the parameter', () => {
      expect(named('screenshot', { proxy: 'http://u:p@proxy.example:8080', ip_location: 'de' })).toEqual(['proxy']);
      const problems = problemsOf('screenshot', { url: undefined, html: '<p>x</p>', cookies: 'a=1', authorization: 'dTpw' });
      expect(problems.map((p) => p.parameter).sort()).toEqual(['authorization', 'cookies']);
    });
  });
});

describe('validateRenderParams: lists', () => {
  describe('When lists come as separated strings, repeated values or JSON arrays', () => {
    it('should give the same items', () => {
      const forms = [
        { hide_selectors: '#a, .b:is(p, div),[title="x,y"]', headers: 'X-A: 1; Accept: text/html; q=0.9', cookies: 'a=1; b=x=y', block_ressources: 'image,font' },
        { hide_selectors: ['#a', '.b:is(p, div)', '[title="x,y"]'], headers: ['X-A: 1', 'Accept: text/html; q=0.9'], cookies: ['a=1', 'b=x=y'], block_ressources: ['image', 'font'] },
        { hide_selectors: ['#a, .b:is(p, div)', '[title="x,y"]'], headers: ['X-A: 1;Accept: text/html; q=0.9'], cookies: ['a=1;b=x=y'], block_ressources: ['image', 'font,image'] },
      ];
      for (const form of forms) {
        const { params } = validateRenderParams('screenshot', { url: 'https://example.com/', ...form });
        expect(params.hide_selectors).toEqual(['#a', '.b:is(p, div)', '[title="x,y"]']);
        expect(params.headers).toEqual(['X-A: 1', 'Accept: text/html; q=0.9']);
        expect(params.cookies).toEqual(['a=1', 'b=x=y']);
        expect(params.block_ressources).toEqual(['image', 'font']);
      }
    });
  });
});

describe('validateRenderParams: defaults and devices', () => {
  describe('When nothing optional is given', () => {
    it('should apply the spec defaults', () => {
      const { params } = validateRenderParams('screenshot', { url: 'https://example.com/' });
      expect(params).toMatchObject({ block_annoyance: 'cookies_banner', media_type: 'screen', viewport_width: 1280, viewport_height: 1080 });
    });
  });

  describe('When a device is named', () => {
    it('should leave the viewport to the device unless viewport_* are given', () => {
      const { params } = validateRenderParams('screenshot', { url: 'https://example.com/', viewport_device: 'iphone_13_pro_max' });
      expect(params.viewport_width).toBeUndefined();
      const explicit = validateRenderParams('screenshot', { url: 'https://example.com/', viewport_device: 'pixel_5', viewport_width: 500 });
      expect(explicit.params.viewport_width).toBe(500);
    });

    it('should name every Puppeteer device lowercased with underscores and no parentheses', () => {
      expect(DEVICES.get('iphone_13_pro_max')?.name).toBe('iPhone 13 Pro Max');
      expect(DEVICES.get('pixel_4a_5g')?.name).toBe('Pixel 4a (5G)');
      for (const [id, device] of DEVICES) {
        expect(id).toBe(deviceId(device.name));
        expect(id).toMatch(/^[a-z0-9_+]+$/);
      }
    });
  });
});

describe('validateRenderParams: ScreenshotMAX client compatibility', () => {
  describe('When headers and cookies come comma-joined, as that client joins a list', () => {
    it('should read a comma as a new item only where a name follows it', () => {
      const { params } = validateRenderParams('screenshot', {
        url: 'https://example.com/',
        headers: 'X-A: 1,X-B: 2',
        cookies: 'a=1,b=2',
      });
      expect(params.headers).toEqual(['X-A: 1', 'X-B: 2']);
      expect(params.cookies).toEqual(['a=1', 'b=2']);
      const kept = validateRenderParams('scrape', {
        url: 'https://example.com/',
        headers: 'Accept: text/html, application/xml;q=0.9,X-Date: Wed, 21 Oct 2015 07:28:00 GMT,Referer: https://a.test/x,https://b.test/',
        cookies: ['list=a,b', 'c=1, d=2'],
      }).params;
      expect(kept.headers).toEqual(['Accept: text/html, application/xml;q=0.9', 'X-Date: Wed, 21 Oct 2015 07:28:00 GMT', 'Referer: https://a.test/x,https://b.test/']);
      expect(kept.cookies).toEqual(['list=a,b', 'c=1', 'd=2']);
    });
  });

  describe('When 0 is sent for a size or the timeout', () => {
    it.each(['viewport_width', 'viewport_height', 'image_width', 'image_height', 'clip_width', 'clip_height', 'timeout'])(
      'should read %s=0 as not set, as a JSON number or a query string',
      (name) => {
        const expected = validateRenderParams('screenshot', { url: 'https://example.com/' }).params;
        for (const zero of [0, '0']) {
          const { params } = validateRenderParams('screenshot', { url: 'https://example.com/', [name]: zero });
          expect(params).toEqual(expected);
        }
      },
    );

    it('should take clip_x=0 and clip_y=0 with zero sizes as no clip, and a clip with sizes as before', () => {
      const none = validateRenderParams('pdf', { url: 'https://example.com/', clip_x: 0, clip_y: 0, clip_width: 0, clip_height: 0 }).params;
      expect(none.clip_width).toBeUndefined();
      const clip = validateRenderParams('pdf', { url: 'https://example.com/', clip_x: 0, clip_y: 0, clip_width: 10, clip_height: 20 }).params;
      expect(clip).toMatchObject({ clip_x: 0, clip_y: 0, clip_width: 10, clip_height: 20 });
      expect(named('pdf', { clip_x: 5, clip_width: 0 })).toEqual(['clip_width']);
    });
  });

  describe("When a device is named in ScreenshotMAX's spelling", () => {
    it('should take galaxy_s9plus as galaxy_s9+', () => {
      expect(DEVICES.get('galaxy_s9+')).toBeDefined();
      for (const name of ['galaxy_s9plus', 'galaxy_s9+']) {
        expect(validateRenderParams('screenshot', { url: 'https://example.com/', viewport_device: name }).params.viewport_device).toBe('galaxy_s9+');
      }
      expect(validateRenderParams('scrape', { url: 'https://example.com/', viewport_device: 'galaxy_s9plus_landscape' }).params.viewport_device).toBe(
        'galaxy_s9+_landscape',
      );
      expect(named('screenshot', { viewport_device: 'galaxy_s9pluss' })).toEqual(['viewport_device']);
    });
  });

  describe('When scrape is given hide_selectors and click_selector', () => {
    it('should accept them', () => {
      const { params } = validateRenderParams('scrape', { url: 'https://example.com/', hide_selectors: '#a,.b', click_selector: '#more' });
      expect(params).toMatchObject({ hide_selectors: ['#a', '.b'], click_selector: '#more' });
    });
  });
});
