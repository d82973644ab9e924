import { loggedUrl } from './logged-url';

describe('loggedUrl', () => {
  it.each([
    ['/uploads/6650f1a2b3c4d5e6f7a8b9c0/u7Yh3kQp', '/uploads/6650f1a2b3c4d5e6f7a8b9c0/[redacted]'],
    ['/uploads/6650f1a2b3c4d5e6f7a8b9c0/u7Yh3kQp?x=1', '/uploads/6650f1a2b3c4d5e6f7a8b9c0/[redacted]?x=1'],
    [
      '/asset-content/6650c0ffee0000000000e001.6650c0ffee0000000000a001.6650c0ffee0000000000b001.1795600000.W0DO3bWAolR-FllPAn3V-K-CZ3oL6vr-UQx8Y_aR7XA',
      '/asset-content/[redacted]',
    ],
    ['/api/v1/password-resets/abc123', '/api/v1/password-resets/[redacted]'],
    ['/api/v1/email-verifications/abc123', '/api/v1/email-verifications/[redacted]'],
    ['/dashboard/verify-email?token=abc&next=1', '/dashboard/verify-email?token=[redacted]&next=1'],
    ['/dashboard/signup?invitation=inv_abc', '/dashboard/signup?invitation=[redacted]'],
    ['/dashboard/reset?lang=en&code=xyz', '/dashboard/reset?lang=en&code=[redacted]'],
  ])('%s is logged as %s', (url, logged) => {
    expect(loggedUrl(url)).toBe(logged);
  });

  it.each([
    '/api/v1/password-resets',
    '/v1/customers?limit=10',
    '/uploads',
    '/api/v1/accounts/65/audit-log?action=user.logged_in',
  ])('%s is logged as it is', (url) => {
    expect(loggedUrl(url)).toBe(url);
  });
});
