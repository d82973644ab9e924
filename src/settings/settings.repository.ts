import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { isDuplicateKey } from '../common/database/duplicate-key';
import { Records } from '../database/records';
import { Setting } from './setting.schema';

/** The settings collection: the only code that reads or writes it. */
@Injectable()
export class SettingsRepository {
  private readonly records: Records<Setting>;

  constructor(@InjectModel(Setting.name) model: Model<Setting>) {
    this.records = new Records(model);
  }

  async read(name: string): Promise<unknown> {
    return (await this.records.findOne({ _id: name }))?.value;
  }

  /** Sets the value, creating the setting when it is not there yet. */
  async write(name: string, value: unknown): Promise<void> {
    try {
      await this.records.insert({ _id: name, value });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      await this.records.updateOne({ _id: name }, { $set: { value } });
    }
  }
}
