import { usernameKey } from './channel.schema';

describe('usernameKey', () => {
  it('folds case, so Ada and ada are one username', () => {
    expect(usernameKey('AdaSings')).toBe(usernameKey('adasings'));
  });
});
