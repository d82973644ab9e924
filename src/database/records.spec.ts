import { Schema } from 'mongoose';
import { UserSchema } from '../identity/users/user.schema';
import { hiddenFields } from './records';

describe('hiddenFields', () => {
  it("leaves out the schema's select: false paths, as a Mongoose query would", () => {
    const schema = new Schema({
      name: String,
      secret: { type: String, select: false },
      nested: { token: { type: String, select: false } },
    });
    expect(hiddenFields(schema)).toEqual({ secret: 0, 'nested.token': 0 });
  });

  it("keeps the users' password hashes and second-factor secrets out of every lean read", () => {
    expect(hiddenFields(UserSchema)).toEqual({
      passwordHash: 0,
      totpSecret: 0,
      totpPendingSecret: 0,
      recoveryCodeHashes: 0,
    });
  });

  it('projects nothing when the schema hides nothing', () => {
    expect(hiddenFields(new Schema({ name: String }))).toBeUndefined();
  });
});
