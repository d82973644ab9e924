import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { fieldEncryptionProviders } from '../config/field-encryption.provider';
import { SettingsModule } from '../settings/settings.module';
import { LeasesModule } from '../leases/leases.module';
import { WebhookAttemptClaim, WebhookAttemptClaimSchema } from './webhook-attempt-claim.schema';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDelivery, WebhookDeliverySchema } from './webhook-delivery.schema';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookEndpoint, WebhookEndpointSchema } from './webhook-endpoint.schema';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhooksController } from './webhooks.controller';
import { WebhooksPlatformListener } from './webhooks.platform-listener';
import { WebhooksService } from './webhooks.service';

@Module({
  imports: [
    MongooseModule.forFeature([
      { name: WebhookEndpoint.name, schema: WebhookEndpointSchema },
      { name: WebhookDelivery.name, schema: WebhookDeliverySchema },
      { name: WebhookAttemptClaim.name, schema: WebhookAttemptClaimSchema },
    ]),
    LeasesModule,
    SettingsModule,
  ],
  controllers: [WebhooksController],
  providers: [WebhookEndpointsRepository, WebhookDeliveriesRepository, WebhookDispatcher, WebhooksService, WebhooksPlatformListener, ...fieldEncryptionProviders],
})
export class WebhooksModule {}
