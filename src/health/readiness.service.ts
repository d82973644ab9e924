import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectConnection } from '@nestjs/mongoose';
import type { Connection } from 'mongoose';

export type ReadinessState = 'building-indexes' | 'ready' | 'index-build-failed' | 'shutting-down';

/**
 * Whether this instance should take traffic, as far as the process itself can tell: every model's
 * indexes are built (so unique indexes stand before the first writes), and the process is not
 * shutting down. Database reachability is checked per request by the health controller.
 */
@Injectable()
export class Readiness implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Readiness');
  private current: ReadinessState = 'building-indexes';
  private modelCount = 0;

  constructor(@InjectConnection() private readonly connection: Connection) {}

  get state(): ReadinessState {
    return this.current;
  }

  get models(): number {
    return this.modelCount;
  }

  /**
   * Waits for the index builds that the database module starts at boot. `Model.init()` returns the
   * build the model already started (Mongoose keeps its promise), so nothing is built twice.
   */
  async onApplicationBootstrap(): Promise<void> {
    const models = Object.values(this.connection.models);
    try {
      await Promise.all(models.map((model) => model.init()));
      this.modelCount = models.length;
      if (this.current === 'building-indexes') this.current = 'ready';
    } catch (error) {
      // The database module reports the failure and stops the start-up; this only keeps the flag honest.
      if (this.current === 'building-indexes') this.current = 'index-build-failed';
      this.logger.warn(`Index build failed: ${(error as Error).message}`);
    }
  }

  /** Draining: a load balancer polling /health/ready stops sending new requests while in-flight ones finish. */
  beforeApplicationShutdown(): void {
    this.current = 'shutting-down';
  }
}
