import { describe, expect, it } from 'vitest';
import { CHROMIUM_CANDIDATES, browserLaunchOptions, chromiumFlags, findChromium, isHeadlessShell } from './launch-options.js';

const only = (...paths: string[]) => (path: string) => paths.includes(path);

describe('findChromium', () => {
  describe('When CHROME_PATH is set', () => {
    it('should use it before the usual locations', () => {
      const path = findChromium({ env: { CHROME_PATH: '/opt/chrome' }, exists: only('/opt/chrome', '/usr/bin/chromium') });
      expect(path).toBe('/opt/chrome');
    });

    it('should fail naming the path when it does not exist', () => {
      expect(() => findChromium({ env: { CHROME_PATH: '/nope' }, exists: () => false })).toThrow(/\/nope.*CHROME_PATH/);
    });
  });

  describe('When an executablePath option is given', () => {
    it('should win over CHROME_PATH', () => {
      const path = findChromium({ executablePath: '/a', env: { CHROME_PATH: '/b' }, exists: () => true });
      expect(path).toBe('/a');
    });
  });

  describe('When nothing is configured', () => {
    it('should prefer the real Debian binary over the wrapper script', () => {
      const path = findChromium({ env: {}, exists: only('/usr/bin/chromium', '/usr/lib/chromium/chromium') });
      expect(path).toBe('/usr/lib/chromium/chromium');
    });

    it('should prefer the headless shell over the full browser', () => {
      const path = findChromium({ env: {}, exists: only('/usr/bin/chromium', '/usr/lib/chromium/chromium', '/usr/lib/chromium/chromium-headless-shell') });
      expect(path).toBe('/usr/lib/chromium/chromium-headless-shell');
    });

    it('should fall back along the candidate list', () => {
      expect(findChromium({ env: {}, exists: only('/usr/bin/google-chrome') })).toBe('/usr/bin/google-chrome');
    });

    it('should fail with a message that names CHROME_PATH when no browser exists', () => {
      expect(() => findChromium({ env: {}, exists: () => false })).toThrow(/CHROME_PATH/);
      expect(CHROMIUM_CANDIDATES[0]).toBe('/usr/lib/chromium/chromium-headless-shell');
    });
  });
});

describe('chromiumFlags', () => {
  describe('When called with defaults', () => {
    const flags = chromiumFlags({ userDataDir: '/tmp/profile' });

    it('should run headless without GPU, shm or background services', () => {
      expect(flags).toEqual(
        expect.arrayContaining([
          '--headless=new',
          '--disable-gpu',
          '--disable-dev-shm-usage',
          '--disable-background-networking',
          '--disable-component-update',
          '--no-first-run',
          '--disable-sync',
          '--user-data-dir=/tmp/profile',
        ]),
      );
    });

    it('should keep the sandbox and set no proxy', () => {
      expect(flags).not.toContain('--no-sandbox');
      expect(flags.some((f) => f.startsWith('--proxy-server'))).toBe(false);
    });
  });

  describe('When running as root', () => {
    it('should disable the sandbox', () => {
      expect(chromiumFlags({ userDataDir: '/p', runningAsRoot: true })).toContain('--no-sandbox');
    });
  });

  describe('When the GPU option is on', () => {
    it('should not disable the GPU', () => {
      expect(chromiumFlags({ userDataDir: '/p', gpu: true })).not.toContain('--disable-gpu');
    });
  });

  describe('When an egress proxy is given', () => {
    it('should send all traffic, loopback included, through it', () => {
      const flags = chromiumFlags({ userDataDir: '/p', proxyUrl: 'http://127.0.0.1:3128' });
      expect(flags).toContain('--proxy-server=http://127.0.0.1:3128');
      expect(flags).toContain('--proxy-bypass-list=<-loopback>');
    });
  });

  describe('When certificates to trust are given', () => {
    it('should trust exactly their public keys, and none without them', () => {
      expect(chromiumFlags({ userDataDir: '/p', trustedSpki: ['a+b/=', 'c=='] })).toContain('--ignore-certificate-errors-spki-list=a+b/=,c==');
      expect(chromiumFlags({ userDataDir: '/p', trustedSpki: [] }).some((f) => f.startsWith('--ignore-certificate-errors'))).toBe(false);
    });
  });
});

describe('browserLaunchOptions', () => {
  describe('When building the options of a pooled browser', () => {
    const options = browserLaunchOptions({ executablePath: '/c', userDataDir: '/p' });

    it('should leave signal handling to the service and use the API default viewport', () => {
      expect(options).toMatchObject({ executablePath: '/c', headless: true, handleSIGINT: false, handleSIGTERM: false });
      expect(options.defaultViewport).toEqual({ width: 1280, height: 1080, deviceScaleFactor: 1 });
      expect(options.args).toContain('--headless=new');
    });
  });

  describe('When the binary is the headless shell', () => {
    const options = browserLaunchOptions({ executablePath: '/usr/lib/chromium/chromium-headless-shell', userDataDir: '/p' });

    it("should launch it in Puppeteer's shell mode, without the full browser's --headless=new", () => {
      expect(options.headless).toBe('shell');
      expect(options.args).not.toContain('--headless=new');
      expect(options.args).toContain('--force-webrtc-ip-handling-policy=disable_non_proxied_udp');
    });
  });
});

describe('isHeadlessShell', () => {
  it.each([
    ['/usr/lib/chromium/chromium-headless-shell', true],
    ['/opt/chrome-headless-shell-linux64/chrome-headless-shell', true],
    ['/usr/lib/chromium/chromium', false],
    ['/opt/headless-shell/chrome', false],
  ])('should tell %s: %s', (path, expected) => {
    expect(isHeadlessShell(path)).toBe(expected);
  });
});
