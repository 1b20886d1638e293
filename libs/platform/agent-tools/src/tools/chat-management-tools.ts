import * as z from 'zod/v4';
import {
  CHAT_OFFSET_MAX,
  CHAT_PAGE_MAX,
  EMBED_CONFIG_NAME_MAX,
  EMBED_FEEDBACK_MODES,
  EMBED_SYSTEM_PROMPT_MAX,
  EXPERT_KEYWORD_MAX,
  EXPERT_KEYWORDS_MAX,
  EXPERT_NAME_MAX,
  EXPERT_SYSTEM_PROMPT_MAX,
  EXPERT_TOOLS_MAX,
  EmbedConfigsService,
  ExpertsService,
  type EmbedConfigRecord,
  type ExpertRecord,
} from '@kw/contracts';
import { READ_ONLY, WRITES, defineAgentTool, type AgentTool } from '../agent-tool.js';

const E = ExpertsService.method;
const C = EmbedConfigsService.method;

const expertOut = (e: ExpertRecord) => ({
  id: e.id,
  name: e.name,
  workspaceId: e.workspaceId,
  systemPrompt: e.systemPrompt,
  enabledTools: e.enabledTools,
  routingKeywords: e.routingKeywords,
  modelPreference: e.modelPreference,
  updatedAt: e.updatedAt,
});

const configOut = (c: EmbedConfigRecord) => ({
  id: c.id,
  name: c.name,
  workspaceId: c.workspaceId,
  status: c.status,
  model: c.model,
  modelLocked: c.modelLocked,
  feedbackMode: c.features?.feedbackMode ?? 'off',
  mainExpertId: c.mainExpertId,
  stateless: c.stateless,
  updatedAt: c.updatedAt,
});

// The REST routes' page (GET /api/v2/experts, /api/v2/configs).
const paging = {
  limit: z.number().int().min(1).max(CHAT_PAGE_MAX).optional(),
  offset: z.number().int().min(0).max(CHAT_OFFSET_MAX).optional(),
};
const expertFields = {
  systemPrompt: z.string().max(EXPERT_SYSTEM_PROMPT_MAX).optional(),
  enabledTools: z
    .array(z.string().min(1).max(64))
    .max(EXPERT_TOOLS_MAX)
    .optional()
    .describe('Tool ids (list them with the REST route GET /api/v2/experts/tools)'),
  routingKeywords: z.array(z.string().max(EXPERT_KEYWORD_MAX)).max(EXPERT_KEYWORDS_MAX).optional(),
};
const configFields = {
  systemPrompt: z.string().max(EMBED_SYSTEM_PROMPT_MAX).optional(),
  feedbackMode: z.enum(EMBED_FEEDBACK_MODES).optional(),
  stateless: z.boolean().optional(),
  mainExpertId: z.string().max(64).optional().describe('One of your experts over the same workspace; "" for none'),
};
const noFeatures = { structuredQuestions: false, webSearch: false, exposeWorkspaceFilesToParent: false, theme: '' };

/**
 * Managing custom experts and embed configurations (the REST routes /api/v2/experts and
 * /api/v2/configs, same rules: `applications:manage`, your own only). For MCP clients only: not
 * assignable to an expert. Model fields and keys are managed through REST, where the model
 * catalog and the one-time key token live.
 */
export const chatManagementTools: AgentTool[] = [
  defineAgentTool({
    id: 'list_experts',
    title: 'List experts',
    description: 'Your custom experts, oldest first, optionally of one workspace.',
    inputSchema: { workspaceId: z.uuid().optional(), ...paging },
    annotations: READ_ONLY,
    assignable: false,
    async run({ workspaceId, limit, offset }, client) {
      const page = await client.call(E.listExperts, {
        workspaceId: workspaceId ?? '',
        limit: limit ?? 20,
        offset: offset ?? 0,
      });
      return { experts: page.experts.map(expertOut), totalCount: page.totalCount };
    },
  }),
  defineAgentTool({
    id: 'create_expert',
    title: 'Create an expert',
    description: 'A custom expert over a workspace you can read: instructions, tools and routing keywords.',
    inputSchema: { name: z.string().min(1).max(EXPERT_NAME_MAX), workspaceId: z.uuid(), ...expertFields },
    annotations: WRITES,
    assignable: false,
    async run(args, client) {
      const { expert } = await client.call(E.createExpert, {
        name: args.name,
        workspaceId: args.workspaceId,
        systemPrompt: args.systemPrompt ?? '',
        enabledTools: args.enabledTools ?? [],
        routingKeywords: args.routingKeywords ?? [],
        modelPreference: '',
      });
      return { expert: expertOut(expert!) };
    },
  }),
  defineAgentTool({
    id: 'update_expert',
    title: 'Update an expert',
    description: 'Changes the fields given; lists are replaced as a whole.',
    inputSchema: { id: z.uuid(), name: z.string().min(1).max(EXPERT_NAME_MAX).optional(), ...expertFields },
    annotations: { ...WRITES, idempotentHint: true },
    assignable: false,
    async run(args, client) {
      const { expert } = await client.call(E.updateExpert, {
        id: args.id,
        name: args.name,
        systemPrompt: args.systemPrompt,
        enabledTools: args.enabledTools ?? [],
        setEnabledTools: args.enabledTools !== undefined,
        routingKeywords: args.routingKeywords ?? [],
        setRoutingKeywords: args.routingKeywords !== undefined,
      });
      return { expert: expertOut(expert!) };
    },
  }),
  defineAgentTool({
    id: 'archive_expert',
    title: 'Archive an expert',
    description: 'The expert disappears from listings and can no longer be used.',
    inputSchema: { id: z.uuid() },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    assignable: false,
    async run({ id }, client) {
      await client.call(E.archiveExpert, { id });
      return { archived: true, id };
    },
  }),
  defineAgentTool({
    id: 'list_embed_configs',
    title: 'List embed configurations',
    description: 'Your embed configurations, oldest first: active ones, or archived ones with status "archived".',
    inputSchema: { workspaceId: z.uuid().optional(), status: z.enum(['active', 'archived']).optional(), ...paging },
    annotations: READ_ONLY,
    assignable: false,
    async run({ workspaceId, status, limit, offset }, client) {
      const page = await client.call(C.listConfigs, {
        workspaceId: workspaceId ?? '',
        status: status ?? '',
        limit: limit ?? 20,
        offset: offset ?? 0,
      });
      return { configs: page.configs.map(configOut), totalCount: page.totalCount };
    },
  }),
  defineAgentTool({
    id: 'create_embed_config',
    title: 'Create an embed configuration',
    description: 'How the chat embedded in a site behaves, over a workspace you can read. Keys are made through REST.',
    inputSchema: { name: z.string().min(1).max(EMBED_CONFIG_NAME_MAX), workspaceId: z.uuid(), ...configFields },
    annotations: WRITES,
    assignable: false,
    async run(args, client) {
      const { config } = await client.call(C.createConfig, {
        name: args.name,
        workspaceId: args.workspaceId,
        model: '',
        modelLocked: false,
        features: { feedbackMode: args.feedbackMode ?? 'off', ...noFeatures },
        mainExpertId: args.mainExpertId ?? '',
        stateless: args.stateless ?? false,
        systemPrompt: args.systemPrompt ?? '',
        defaultContext: [],
      });
      return { config: configOut(config!) };
    },
  }),
  defineAgentTool({
    id: 'update_embed_config',
    title: 'Update an embed configuration',
    description: 'Changes the fields given.',
    inputSchema: { id: z.uuid(), name: z.string().min(1).max(EMBED_CONFIG_NAME_MAX).optional(), ...configFields },
    annotations: { ...WRITES, idempotentHint: true },
    assignable: false,
    async run(args, client) {
      const current = (await client.call(C.getConfig, { id: args.id })).config!;
      const { config } = await client.call(C.updateConfig, {
        id: args.id,
        name: args.name,
        systemPrompt: args.systemPrompt,
        stateless: args.stateless,
        mainExpertId: args.mainExpertId,
        features: args.feedbackMode ? { ...current.features!, feedbackMode: args.feedbackMode } : undefined,
        defaultContext: [],
        setDefaultContext: false,
        clearTrustedIssuer: false,
      });
      return { config: configOut(config!) };
    },
  }),
  defineAgentTool({
    id: 'archive_embed_config',
    title: 'Archive an embed configuration',
    description: 'Its keys stop working; it can still be read.',
    inputSchema: { id: z.uuid() },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    assignable: false,
    async run({ id }, client) {
      await client.call(C.archiveConfig, { id });
      return { archived: true, id };
    },
  }),
];
