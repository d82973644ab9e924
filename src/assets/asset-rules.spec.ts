import { contentDisposition, deliveryOf, FILE_NAME_PATTERN, requestedRange, typeAgrees } from './asset-rules';

describe('FILE_NAME_PATTERN', () => {
  it.each(['clip.mp4', 'Été 2026.wav', 'a b (1).png', '.hidden'])('accepts %j', (name) =>
    expect(FILE_NAME_PATTERN.test(name)).toBe(true),
  );
  it.each(['../etc/passwd', 'dir/clip.mp4', 'C:\\clip.mp4', '..', '.', 'a\nb', 'a\u0000b'])('refuses %j', (name) =>
    expect(FILE_NAME_PATTERN.test(name)).toBe(false),
  );
});

describe('typeAgrees', () => {
  it('wants the sniffed type to be the declared one, of the kind', () => {
    expect(typeAgrees('image', 'image/png', 'image/png', false)).toBe(true);
    expect(typeAgrees('image', 'image/jpg', 'image/jpeg', false)).toBe(true);
    expect(typeAgrees('audio', 'audio/x-wav', 'audio/wav', false)).toBe(true);
    expect(typeAgrees('image', 'image/jpeg', 'image/png', false)).toBe(false);
    expect(typeAgrees('video', 'image/png', 'image/png', false)).toBe(false);
    expect(typeAgrees('audio', 'audio/mpeg', null, true)).toBe(false);
  });

  it('takes audio in a container sniffed under its video name', () => {
    expect(typeAgrees('audio', 'audio/webm', 'video/webm', false)).toBe(true);
    expect(typeAgrees('video', 'audio/webm', 'video/webm', false)).toBe(false);
  });

  it('takes text only without a signature and without NUL bytes', () => {
    expect(typeAgrees('text', 'text/plain; charset=utf-8', null, true)).toBe(true);
    expect(typeAgrees('text', 'text/plain', null, false)).toBe(false);
    expect(typeAgrees('text', 'text/plain', 'image/png', false)).toBe(false);
    expect(typeAgrees('text', 'application/json', null, true)).toBe(false);
  });
});

describe('contentDisposition', () => {
  it('keeps quotes, line breaks and paths out, and the exact name in filename*', () => {
    const header = contentDisposition('a"b\r\nSet-Cookie: x/..\\y.txt');
    expect(header).not.toMatch(/[\r\n]/);
    expect(header).toBe(
      `inline; filename="a_b__Set-Cookie: x_.._y.txt"; filename*=UTF-8''a%22b__Set-Cookie%3A%20x_.._y.txt`,
    );
  });

  it('encodes what is not ASCII (RFC 8187)', () => {
    expect(contentDisposition('Été.wav', 'attachment')).toBe(
      `attachment; filename="_t_.wav"; filename*=UTF-8''%C3%89t%C3%A9.wav`,
    );
  });
});

describe('requestedRange', () => {
  it('reads one range, open-ended and suffix ones included', () => {
    expect(requestedRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(requestedRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
    expect(requestedRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(requestedRange('bytes=50-500', 100)).toEqual({ start: 50, end: 99 });
  });

  it('answers a range outside the file as unsatisfiable, and ignores what it does not support', () => {
    expect(requestedRange('bytes=100-', 100)).toBe('unsatisfiable');
    expect(requestedRange('bytes=9-3', 100)).toBe('unsatisfiable');
    expect(requestedRange('bytes=-0', 100)).toBe('unsatisfiable');
    expect(requestedRange('bytes=0-1,5-6', 100)).toBeUndefined();
    expect(requestedRange('items=0-1', 100)).toBeUndefined();
    expect(requestedRange(undefined, 100)).toBeUndefined();
  });
});

describe('deliveryOf', () => {
  it.each([
    'image/png',
    'image/jpeg',
    'image/gif',
    'image/webp',
    'image/avif',
    'audio/mpeg',
    'audio/wav',
    'video/mp4',
    'video/webm',
    'text/plain',
    'text/plain; charset=utf-8',
  ])('serves %s inline, as it is', (type) => {
    expect(deliveryOf(type)).toEqual({ contentType: type, disposition: 'inline' });
  });

  it.each([
    'image/svg+xml',
    'text/html',
    'TEXT/HTML; charset=utf-8',
    'text/xml',
    'text/javascript',
    'text/css',
    'text/markdown',
    'application/pdf',
    'application/xhtml+xml',
    'image/x-icon',
    'image/tiff',
    'application/x-unknown',
    null,
  ])('serves %p as an attachment of application/octet-stream', (type) => {
    expect(deliveryOf(type)).toEqual({ contentType: 'application/octet-stream', disposition: 'attachment' });
  });
});
