import { Injectable } from '@nestjs/common';
import { SettingsRepository } from './settings.repository';

const REENCRYPTION = 'reencrypt';

/** What `npm run reencrypt` left behind: when it last ran to its end. */
export interface ReencryptionRecord {
  completedAt: Date;
}

/** Facts about the deployment that operators' commands record and the service reads at start. */
@Injectable()
export class SettingsService {
  constructor(private readonly settings: SettingsRepository) {}

  /** When `npm run reencrypt` last ran to its end; null when it never has on this database. */
  async lastReencryption(): Promise<ReencryptionRecord | null> {
    const value = (await this.settings.read(REENCRYPTION)) as { completedAt?: unknown } | undefined;
    return value?.completedAt instanceof Date ? { completedAt: value.completedAt } : null;
  }

  async recordReencryption(completedAt: Date): Promise<void> {
    await this.settings.write(REENCRYPTION, { completedAt });
  }
}
