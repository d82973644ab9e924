import { ConflictException, Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import type { UserRole } from '../common/decorators/roles.decorator';
import { isDuplicateKey } from '../common/database/duplicate-key';
import { SystemFlag, User } from './user.schema';

const FIRST_USER_FLAG = 'first-user';

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

@Injectable()
export class UsersService {
  constructor(
    @InjectModel(User.name) private readonly users: Model<User>,
    @InjectModel(SystemFlag.name) private readonly flags: Model<SystemFlag>,
  ) {}

  /** The unique index on email decides duplicates, also between concurrent signups. */
  async create(user: NewUser): Promise<User> {
    try {
      const created = await this.users.create(user);
      return created.toObject();
    } catch (error) {
      if (isDuplicateKey(error)) throw new ConflictException('A user with this email already exists');
      throw error;
    }
  }

  findById(id: string): Promise<User | null> {
    return this.users.findById(id).lean<User>().exec();
  }

  findByEmailWithHash(email: string): Promise<UserWithHash | null> {
    return this.users
      .findOne({ email: email.trim().toLowerCase() })
      .select('+passwordHash')
      .lean<UserWithHash>()
      .exec();
  }

  /**
   * Claims the right to be the system's first user. True for exactly one caller, and only while
   * no user exists; the unique `_id` of the flag settles races.
   */
  async claimFirstUser(): Promise<boolean> {
    if ((await this.users.estimatedDocumentCount()) > 0) return false;
    try {
      await this.flags.create({ _id: FIRST_USER_FLAG });
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  /** Gives the claim back when the first signup failed after claiming (a duplicate email, say). */
  async releaseFirstUser(): Promise<void> {
    if ((await this.users.estimatedDocumentCount()) === 0) {
      await this.flags.deleteOne({ _id: FIRST_USER_FLAG });
    }
  }
}
