import { Injectable, Logger } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { isDuplicateKey } from '../../common/database/duplicate-key';
import { Records } from '../../database/records';
import { MfaCodeUse } from './mfa-code-use.schema';

/** The second-factor codes already used: the only code that touches them. */
@Injectable()
export class MfaCodeUsesRepository {
  private readonly records: Records<MfaCodeUse>;

  constructor(@InjectModel(MfaCodeUse.name) model: Model<MfaCodeUse>) {
    this.records = new Records(model);
  }

  /**
   * Claims a code's single use: true for the one claim that inserted it. A used code is the ordinary
   * refusal (a replay), looked up first; the unique `_id` settles only concurrent claims.
   */
  async claim(key: string): Promise<boolean> {
    if (await this.records.exists({ _id: key })) return false;
    try {
      await this.records.insert({ _id: key });
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  expireByAge(seconds: number, logger: Logger): Promise<() => void> {
    return this.records.expireByAge(seconds, logger);
  }
}
