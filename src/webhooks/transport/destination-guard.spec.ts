import { checkWebhookUrl, FORBIDDEN_ADDRESS, isForbiddenAddress } from './destination-guard';

describe('webhook destinations', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    'not an address',
  ])('refuses %s', (ip) => expect(isForbiddenAddress(ip)).toBe(true));

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'allows the public address %s',
    (ip) => {
      expect(isForbiddenAddress(ip)).toBe(false);
    },
  );

  const publicLookup = async () => ['93.184.215.14'];

  it('takes an https URL whose host resolves to public addresses only', async () => {
    await expect(
      checkWebhookUrl('https://hooks.example.com/in', { allowPrivate: false, lookup: publicLookup }),
    ).resolves.toBeInstanceOf(URL);
    await expect(checkWebhookUrl('https://8.8.8.8/in', { allowPrivate: false })).resolves.toBeInstanceOf(URL);
  });

  it.each([
    ['http://hooks.example.com/in', 'url must use https'],
    ['ftp://hooks.example.com/in', 'url must use https'],
    ['not a url', 'url must be an absolute URL, like https://example.com/webhooks'],
    ['https://user:pass@hooks.example.com/in', 'url must not carry a user name or password'],
    ['https://127.0.0.1/in', FORBIDDEN_ADDRESS],
    ['https://[::1]/in', FORBIDDEN_ADDRESS],
    ['https://169.254.169.254/latest/meta-data', FORBIDDEN_ADDRESS],
    ['https://localhost/in', FORBIDDEN_ADDRESS],
    ['https://metadata.google.internal/in', FORBIDDEN_ADDRESS],
  ])('refuses %s', async (url, message) => {
    await expect(checkWebhookUrl(url, { allowPrivate: false, lookup: publicLookup })).rejects.toThrow(message);
  });

  it('refuses a name that resolves to a private address, or to nothing', async () => {
    const rebinding = async () => ['93.184.215.14', '10.0.0.5'];
    await expect(
      checkWebhookUrl('https://sneaky.example.com/', { allowPrivate: false, lookup: rebinding }),
    ).rejects.toThrow(FORBIDDEN_ADDRESS);
    const nothing = async () => Promise.reject(new Error('ENOTFOUND'));
    await expect(
      checkWebhookUrl('https://nowhere.example.com/', { allowPrivate: false, lookup: nothing }),
    ).rejects.toThrow('does not resolve');
  });

  it('allows http and private addresses when private URLs are allowed (development and tests)', async () => {
    await expect(checkWebhookUrl('http://127.0.0.1:9999/in', { allowPrivate: true })).resolves.toBeInstanceOf(URL);
    await expect(checkWebhookUrl('https://user:pass@127.0.0.1/in', { allowPrivate: true })).rejects.toThrow(
      'user name or password',
    );
  });
});
