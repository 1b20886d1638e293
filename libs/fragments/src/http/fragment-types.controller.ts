import { Body, Controller, Delete, Get, Param, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { FragmentsService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';
import {
  CreateFragmentTypeDto,
  FragmentTypeListDto,
  FragmentTypeResponseDto,
  SuccessDto,
  UpdateFragmentTypeDto,
} from './dto/collection.dto.js';
import { fragmentTypeJson } from './presenters.js';

const M = FragmentsService.method;

@ApiTags('Fragment types')
@Controller('api/workspaces/:id/fragment-types')
export class FragmentTypesController {
  constructor(private readonly client: ServiceClient) {}

  @Get()
  @ApiOperation({
    summary: 'List fragment types',
    description:
      'Includes the default types (note, decision, meeting, reference, howto), created on first use. Scope `fragments:read`.',
  })
  @ApiOkResponse({ type: FragmentTypeListDto })
  async list(@Param('id') id: string): Promise<FragmentTypeListDto> {
    const { fragmentTypes } = await this.client.call(M.listFragmentTypes, { workspaceId: id });
    return { success: true, items: fragmentTypes.map(fragmentTypeJson), count: fragmentTypes.length };
  }

  @Post()
  @ApiOperation({
    summary: 'Create a fragment type',
    description: '409 `TYPE_KEY_EXISTS` for a taken key. Scope `fragments:write`.',
  })
  @ApiCreatedResponse({ type: FragmentTypeResponseDto })
  async create(@Param('id') id: string, @Body() body: CreateFragmentTypeDto): Promise<FragmentTypeResponseDto> {
    const { fragmentType } = await this.client.call(M.createFragmentType, {
      workspaceId: id,
      key: body.key,
      name: body.name,
      description: body.description ?? '',
    });
    return { success: true, fragmentType: fragmentTypeJson(fragmentType!) };
  }

  @Get(':typeId')
  @ApiOperation({ summary: 'Get a fragment type', description: 'Scope `fragments:read`.' })
  @ApiOkResponse({ type: FragmentTypeResponseDto })
  async get(@Param('id') id: string, @Param('typeId') typeId: string): Promise<FragmentTypeResponseDto> {
    const { fragmentType } = await this.client.call(M.getFragmentType, { workspaceId: id, fragmentTypeId: typeId });
    return { success: true, fragmentType: fragmentTypeJson(fragmentType!) };
  }

  @Patch(':typeId')
  @ApiOperation({
    summary: 'Update a fragment type',
    description: 'Name and description (the key is stable). Scope `fragments:write`.',
  })
  @ApiOkResponse({ type: FragmentTypeResponseDto })
  async update(
    @Param('id') id: string,
    @Param('typeId') typeId: string,
    @Body() body: UpdateFragmentTypeDto,
  ): Promise<FragmentTypeResponseDto> {
    const { fragmentType } = await this.client.call(M.updateFragmentType, {
      workspaceId: id,
      fragmentTypeId: typeId,
      name: body.name,
      description: body.description,
    });
    return { success: true, fragmentType: fragmentTypeJson(fragmentType!) };
  }

  @Delete(':typeId')
  @ApiOperation({
    summary: 'Delete a fragment type',
    description:
      'While fragments (archived ones included) use it: 409 `TYPE_IN_USE` with `fragmentCount`. Scope `fragments:delete`.',
  })
  @ApiOkResponse({ type: SuccessDto })
  async delete(@Param('id') id: string, @Param('typeId') typeId: string): Promise<SuccessDto> {
    await this.client.call(M.deleteFragmentType, { workspaceId: id, fragmentTypeId: typeId });
    return { success: true };
  }
}
