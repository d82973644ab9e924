import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, signingKey, signWebhook, webhookHeaders } from './signature';

describe('Standard Webhooks signatures', () => {
  it("matches the specification's published test vector", () => {
    // The "sign function works" vector of the specification's reference libraries.
    const signature = signWebhook(
      ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it("signs the same under a secret's signing key as under the secret", () => {
    const key = signingKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    expect(signWebhook([key], 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const body = '{"id":"evt_2"}';
    const headers = webhookHeaders([signingKey(current), previous], 'evt_2', 1614265330, body);
    expect(headers['webhook-signature']).toBe(
      webhookHeaders([current, previous], 'evt_2', 1614265330, body)['webhook-signature'],
    );
  });

  it('makes secrets of 32 random bytes, whsec_-prefixed', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it('is verified by the standardwebhooks package, with either secret while two sign', () => {
    const [current, previous, stranger] = [newWebhookSecret(), newWebhookSecret(), newWebhookSecret()];
    const body = JSON.stringify({ id: 'evt_1', type: 'customer.created', data: { object: { name: 'Ünïcode ✓' } } });
    const headers = webhookHeaders([current, previous], 'evt_1', Math.floor(Date.now() / 1000), body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toMatchObject({ id: 'evt_1' });
    expect(new Webhook(previous).verify(body, headers)).toMatchObject({ id: 'evt_1' });
    expect(() => new Webhook(stranger).verify(body, headers)).toThrow();
    expect(() => new Webhook(current).verify(body.replace('evt_1', 'evt_2'), headers)).toThrow();
  });
});
