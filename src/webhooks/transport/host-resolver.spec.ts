import { createSocket, type Socket } from 'node:dgram';
import { pbkdf2 } from 'node:crypto';
import { HostResolver } from './host-resolver';

describe('HostResolver', () => {
  it('answers an address as itself, and localhost as loopback, without asking DNS', async () => {
    const resolver = new HostResolver(['127.0.0.1:1']);
    expect(await resolver.addresses('203.0.113.7')).toEqual(['203.0.113.7']);
    expect(await resolver.addresses('::1')).toEqual(['::1']);
    expect(await resolver.addresses('LOCALHOST.')).toEqual(['127.0.0.1', '::1']);
    expect(await resolver.addresses('hooks.localhost')).toEqual(['127.0.0.1', '::1']);
  });

  describe('with a DNS server that never answers', () => {
    let silent: Socket;
    let queries = 0;
    let server: string;

    beforeAll(async () => {
      silent = createSocket('udp4');
      silent.on('message', () => (queries += 1));
      await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
      server = `127.0.0.1:${silent.address().port}`;
    });
    afterAll(() => new Promise<void>((resolve) => silent.close(() => resolve())));

    it("leaves libuv's thread pool free while lookups wait (the pool has four threads; getaddrinfo would hold one each)", async () => {
      const resolver = new HostResolver([server]);
      const lookups = Array.from({ length: 8 }, (_, i) =>
        resolver.addresses(`slow-${i}.example.com`).then(
          () => 'resolved',
          (error: NodeJS.ErrnoException) => error.code,
        ),
      );
      // Every lookup's queries (A and AAAA) are out and unanswered.
      for (let waited = 0; queries < 16 && waited < 200; waited++)
        await new Promise((resolve) => setTimeout(resolve, 5));
      expect(queries).toBeGreaterThanOrEqual(16);
      const pooled = await new Promise<string>((resolve, reject) =>
        pbkdf2('password', 'salt', 1, 32, 'sha256', (error) => (error ? reject(error) : resolve('done'))),
      );
      expect(pooled).toBe('done');
      resolver.cancel();
      expect(await Promise.all(lookups)).toEqual(Array(8).fill('ECANCELLED'));
    });
  });
});
