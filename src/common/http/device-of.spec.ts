import { deviceOf } from './device-of';

describe('deviceOf', () => {
  it('names the browser (major version) and the system', () => {
    expect(
      deviceOf(
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
      ),
    ).toBe('Chrome 126 on macOS');
    expect(deviceOf('Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0')).toBe(
      'Firefox 128 on Windows',
    );
  });

  it('keeps what it cannot read, cut short, and says nothing without a user agent', () => {
    expect(deviceOf('curl/8.5.0')).toBe('curl/8.5.0');
    expect(deviceOf('x'.repeat(200))).toHaveLength(64);
    expect(deviceOf(null)).toBeNull();
  });
});
