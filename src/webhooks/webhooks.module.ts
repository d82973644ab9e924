import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { fieldEncryptionProviders } from '../settings/field-encryption.provider';
import { SettingsModule } from '../settings/settings.module';
import { LeasesModule } from '../leases/leases.module';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDelivery, WebhookDeliverySchema } from './webhook-delivery.schema';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookEndpoint, WebhookEndpointSchema } from './webhook-endpoint.schema';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { EventDeliveriesController } from './event-deliveries.controller';
import { WebhooksController } from './webhooks.controller';
import { WebhooksPlatformListener } from './webhooks.platform-listener';
import { WebhooksService } from './webhooks.service';

/**
 * Webhook endpoints, their deliveries, and the dispatcher that sends them. Invariants: at most 16
 * endpoints a project; an endpoint's secret is stored encrypted and shown once; a URL is checked
 * against private and metadata addresses at create and at every connection; an event gives at most
 * one delivery per endpoint (a unique index on endpoint and event), and each attempt is claimed in
 * the delivery itself by one write (the fan-out's insert, or an update guarded on the attempt number
 * and claim token) and sent only while its claim covers the whole timeout, its outcome written under
 * the same token, so delivery is at least once and never by two instances at a time (WebhookDispatcher).
 */
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: WebhookEndpoint.name, schema: WebhookEndpointSchema },
      { name: WebhookDelivery.name, schema: WebhookDeliverySchema },
    ]),
    LeasesModule,
    SettingsModule,
  ],
  controllers: [WebhooksController, EventDeliveriesController],
  providers: [
    WebhookEndpointsRepository,
    WebhookDeliveriesRepository,
    WebhookDispatcher,
    WebhooksService,
    WebhooksPlatformListener,
    ...fieldEncryptionProviders,
  ],
})
export class WebhooksModule {}
