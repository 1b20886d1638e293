import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceMovesService } from '@kw/contracts';
import { NoStore } from '@kw/platform-http';
import { ServiceClient } from '@kw/platform-transport';
import { HandoffResponseDto } from './dto/hosted-zones.dto.js';
import { CompleteMoveDto, StartMoveDto, WorkspaceMoveResponseDto } from './dto/moves.dto.js';
import { handoffJson, moveJson } from './presenters.js';

const M = WorkspaceMovesService.method;

/** Moving a workspace between the Cloud and a hosted zone, or between zones (docs/portable-workspaces.md#moving). */
@ApiTags('Workspace moves')
@Controller('api/workspaces/:id/moves')
export class MovesController {
  constructor(private readonly client: ServiceClient) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Start moving a workspace to another plane',
    description:
      'Owners (`workspaces:write`). The workspace becomes `moving`: read-only on its source plane (writes answer 409 ' +
      '`WORKSPACE_MOVING`) until the move is completed or aborted. A target zone provisions it at its next heartbeat; ' +
      'a source Leaf confirms read-only at its next heartbeats; then the move is `copying`.',
  })
  @ApiCreatedResponse({ type: WorkspaceMoveResponseDto })
  async start(@Param('id') id: string, @Body() body: StartMoveDto): Promise<WorkspaceMoveResponseDto> {
    const { move } = await this.client.call(M.startMove, {
      workspaceId: id,
      hostedZoneId: body.hostedZoneId ?? '',
      leaveFilesBehind: body.leaveFilesBehind ?? false,
    });
    return { success: true, move: moveJson(move) };
  }

  @Get(':moveId')
  @ApiOperation({ summary: 'A move and its status', description: 'Owners (`workspaces:write`).' })
  @ApiOkResponse({ type: WorkspaceMoveResponseDto })
  async get(@Param('id') id: string, @Param('moveId') moveId: string): Promise<WorkspaceMoveResponseDto> {
    const { move } = await this.client.call(M.getMove, { workspaceId: id, moveId });
    return { success: true, move: moveJson(move) };
  }

  @Post(':moveId/handoff')
  @HttpCode(200)
  @NoStore()
  @ApiOperation({
    summary: "A handoff token for the move's target zone",
    description:
      'While the move is `copying` to a zone: a handoff token for the workspace at the target Leaf, where the client ' +
      "imports the source's export (`POST /api/workspaces/{id}/imports` there). 409 `CONFLICT` otherwise.",
  })
  @ApiOkResponse({ type: HandoffResponseDto })
  async handoff(@Param('id') id: string, @Param('moveId') moveId: string): Promise<HandoffResponseDto> {
    const { handoff } = await this.client.call(M.issueMoveHandoff, { workspaceId: id, moveId });
    return handoffJson(handoff);
  }

  @Post(':moveId/complete')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Complete a move: switch the placement, remove the source copy',
    description:
      'While `copying`. The placement switches to the target in one transaction and the workspace is `active` ' +
      "there; the source copy is removed (the Cloud's at once, a Leaf's at its next heartbeat: `leftoverRemoved`). " +
      'A Cloud target needs `importTransferId`, an import there that ended `done`. Idempotent: calling it again ' +
      "retries a removal of the Cloud's copy that failed.",
  })
  @ApiOkResponse({ type: WorkspaceMoveResponseDto })
  async complete(
    @Param('id') id: string,
    @Param('moveId') moveId: string,
    @Body() body: CompleteMoveDto,
  ): Promise<WorkspaceMoveResponseDto> {
    const { move } = await this.client.call(M.completeMove, {
      workspaceId: id,
      moveId,
      importTransferId: body.importTransferId ?? '',
    });
    return { success: true, move: moveJson(move) };
  }

  @Post(':moveId/abort')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Abort a move',
    description:
      'While `preparing` or `copying`: the workspace stays where it was and is writable again; whatever reached ' +
      'the target is removed. Idempotent.',
  })
  @ApiOkResponse({ type: WorkspaceMoveResponseDto })
  async abort(@Param('id') id: string, @Param('moveId') moveId: string): Promise<WorkspaceMoveResponseDto> {
    const { move } = await this.client.call(M.abortMove, { workspaceId: id, moveId });
    return { success: true, move: moveJson(move) };
  }
}
