import { ConflictException, Injectable, UnauthorizedException } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import type { UserRole } from '../common/decorators/roles.decorator';
import { isDuplicateKey } from '../common/database/duplicate-key';
import { User } from './user.schema';
import { insertDocument } from '../common/database/insert-document';

import { findLean, findOneLean } from '../common/database/lean-read';

export interface NewUser {
  firstName: string;
  lastName: string;
  email: string;
  passwordHash: string;
  role: UserRole;
  phoneNumber?: number;
  address?: Record<string, unknown>;
  avatar?: string;
}

export type UserWithHash = User & { passwordHash: string };

/** People who log in. Emails are unique across the service; users belong to accounts through memberships. */
@Injectable()
export class UsersService {
  constructor(@InjectModel(User.name) private readonly users: Model<User>) {}

  /** The unique index on email decides duplicates, also between concurrent signups. */
  async create(user: NewUser): Promise<User> {
    try {
      return await insertDocument(this.users, user);
    } catch (error) {
      if (isDuplicateKey(error)) throw new ConflictException('A user with this email already exists');
      throw error;
    }
  }

  findById(id: string): Promise<User | null> {
    if (!Types.ObjectId.isValid(id)) return Promise.resolve(null);
    return findOneLean(this.users, { _id: new Types.ObjectId(id) });
  }

  /** Without their password hashes (`select: false`), like every read here but `findByEmailWithHash`. */
  findByIds(ids: string[]): Promise<User[]> {
    const valid = ids.filter((id) => Types.ObjectId.isValid(id)).map((id) => new Types.ObjectId(id));
    return findLean(this.users, { _id: { $in: valid } });
  }

  findByEmail(email: string): Promise<User | null> {
    return findOneLean(this.users, { email: email.trim().toLowerCase() });
  }

  findByEmailWithHash(email: string): Promise<UserWithHash | null> {
    return findOneLean<User, UserWithHash>(this.users, { email: email.trim().toLowerCase() }, { include: ['passwordHash'] });
  }

  /** The email of a token's user; a token whose user is gone is no longer valid. */
  async emailOf(id: string): Promise<string> {
    const user = await this.findById(id);
    if (!user) throw new UnauthorizedException('The user of this token no longer exists');
    return user.email;
  }

  /** Undoes a signup that could not finish (its user has no membership yet). */
  async remove(id: string): Promise<void> {
    await this.users.deleteOne({ _id: id }).exec();
  }

  /** Update then read: FerretDB refuses findOneAndUpdate with the projection `select: false` implies. */
  async setDefaultCompany(id: string, accountId: string | null): Promise<User | null> {
    await this.users.updateOne({ _id: id }, { $set: { defaultCompany: accountId } }).exec();
    return this.findById(id);
  }
}
