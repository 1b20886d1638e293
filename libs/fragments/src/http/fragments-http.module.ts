import { Module } from '@nestjs/common';
import { EnrichmentController } from '../enrichment/enrichment.controller.js';
import { CollectionsController } from './collections.controller.js';
import { FragmentTypesController } from './fragment-types.controller.js';
import { FragmentsController } from './fragments.controller.js';

/** The HTTP side of the fragments component, composed into the gateway. */
@Module({ controllers: [FragmentsController, FragmentTypesController, CollectionsController, EnrichmentController] })
export class FragmentsHttpModule {}
