import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { FilesService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';
import { FileListDto } from './dto/file.dto.js';
import { fileJson } from './presenters.js';

@ApiTags('Files')
@Controller('api/fragments')
export class FragmentFilesController {
  constructor(private readonly client: ServiceClient) {}

  @Get(':id/files')
  @ApiOperation({
    summary: 'Files of a fragment',
    description:
      'The files attached to the fragment, oldest attachment first. Whoever may read the fragment and files of its workspace.',
  })
  @ApiOkResponse({ type: FileListDto })
  async list(@Param('id') id: string): Promise<FileListDto> {
    const { files } = await this.client.call(FilesService.method.listFragmentFiles, { fragmentId: id });
    return { success: true, items: files.map(fileJson), count: files.length };
  }
}
