import { downloaderOf } from '../../assets/asset-delivery';
import { clientOf } from './client-address';

describe('clientOf', () => {
  it('an IPv4 address as it is, also in its IPv4-mapped IPv6 form', () => {
    expect(clientOf('203.0.113.9')).toBe('203.0.113.9');
    expect(clientOf('::ffff:203.0.113.9')).toBe('203.0.113.9');
  });

  it("an IPv6 address's /64: one subscriber rotating through its /64 is one client", () => {
    expect(clientOf('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:db8:1:3::1')).not.toBe(clientOf('2001:db8:1:2::1'));
  });

  it("a publishable key's downloads and viewer limit count one /64 as one client", () => {
    const viewer = { kind: 'apiKey', keyId: 'k1', publishable: true } as never;
    expect(downloaderOf(viewer, '2001:db8:1:2::1')).toBe(downloaderOf(viewer, '2001:db8:1:2::abcd'));
    expect(downloaderOf(viewer, '2001:db8:1:2::1')).not.toBe(downloaderOf(viewer, '2001:db8:9:9::1'));
  });
});
