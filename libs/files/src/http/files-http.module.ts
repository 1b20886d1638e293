import { Module } from '@nestjs/common';
import { blobStorageProvider } from '@kw/platform-runtime';
import { FilesController } from './files.controller.js';
import { FragmentFilesController } from './fragment-files.controller.js';
import { WorkspaceFilesController } from './workspace-files.controller.js';

/** The HTTP side of the files component, composed into the gateway: it streams the bytes itself. */
@Module({
  controllers: [FilesController, FragmentFilesController, WorkspaceFilesController],
  providers: [blobStorageProvider],
})
export class FilesHttpModule {}
