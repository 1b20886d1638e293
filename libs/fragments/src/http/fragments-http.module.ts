import { Module } from '@nestjs/common';
import { blobStorageProvider } from '@kw/platform-runtime';
import { CollectionsController } from './collections.controller.js';
import { EnrichmentController } from './enrichment.controller.js';
import { FragmentTypesController } from './fragment-types.controller.js';
import { BulkFragmentsController } from './bulk-fragments.controller.js';
import { FragmentsController } from './fragments.controller.js';
import { TransfersController } from './transfers.controller.js';

/** The HTTP side of the fragments component, composed into the gateway. */
@Module({
  controllers: [
    FragmentsController,
    BulkFragmentsController,
    FragmentTypesController,
    CollectionsController,
    EnrichmentController,
    TransfersController,
  ],
  providers: [blobStorageProvider],
})
export class FragmentsHttpModule {}
