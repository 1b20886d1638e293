import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import {
  AddCollectionFragmentsRequestSchema,
  BulkWriteFragmentsRequestSchema,
  CreateCollectionRequestSchema,
  CreateFragmentRequestSchema,
  CreateFragmentTypeRequestSchema,
  LookupFragmentCollectionsRequestSchema,
  RemoveCollectionFragmentsRequestSchema,
  UpdateCollectionRequestSchema,
  UpdateFragmentRequestSchema,
  UpdateFragmentTypeRequestSchema,
} from '../gen/kw/fragments/v1/fragments_pb.js';
import { CreateSecretRequestSchema, UpdateSecretRequestSchema } from '../gen/kw/chat/v1/chat_pb.js';
import {
  CreateConfigRequestSchema,
  CreateKeyRequestSchema,
  UpdateConfigRequestSchema,
  UpdateKeyRequestSchema,
} from '../gen/kw/chat/v1/embed_configs_pb.js';
import { CreateExpertRequestSchema, UpdateExpertRequestSchema } from '../gen/kw/chat/v1/experts_pb.js';
import { CreateWebhookRequestSchema, UpdateWebhookRequestSchema } from '../gen/kw/webhooks/v1/webhooks_pb.js';
import { CreateWorkspaceRequestSchema, UpdateWorkspaceRequestSchema } from '../gen/kw/workspaces/v1/workspaces_pb.js';
import {
  COLLECTION_FRAGMENT_IDS_MAX,
  COLLECTION_NAME_MAX,
  CREATED_VIA,
  DESCRIPTION_MAX,
  FRAGMENT_CONTENT_MAX_BYTES,
  FRAGMENT_KEY_MAX,
  FRAGMENT_SUMMARY_MAX,
  FRAGMENT_TAG_MAX,
  FRAGMENT_TAGS_MAX,
  FRAGMENT_TITLE_MAX,
  FRAGMENT_TYPE_KEY_MAX,
  FRAGMENT_TYPE_NAME_MAX,
  LOOKUP_FRAGMENT_IDS_MAX,
  PATCH_OPERATIONS_MAX,
  BULK_FRAGMENTS_MAX,
} from './fragments.js';
import {
  EMBED_CONFIG_NAME_MAX,
  EMBED_DEFAULT_CONTEXT_MAX,
  EMBED_KEY_LABEL_MAX,
  EMBED_KEY_ORIGINS_MAX,
  EMBED_MODEL_MAX,
  EMBED_ORIGIN_MAX,
  EMBED_SYSTEM_PROMPT_MAX,
} from './embed.js';
import {
  EXPERT_KEYWORD_MAX,
  EXPERT_KEYWORDS_MAX,
  EXPERT_MODEL_MAX,
  EXPERT_NAME_MAX,
  EXPERT_SYSTEM_PROMPT_MAX,
  EXPERT_TOOLS_MAX,
  VAULT_SECRET_DESCRIPTION_MAX,
  VAULT_SECRET_NAME_MAX,
  VAULT_SECRET_PROVIDER_MAX,
  VAULT_SECRET_TYPES,
  VAULT_SECRET_VALUE_MAX_BYTES,
} from './vault.js';
import { AgenticSearchRequestSchema } from '../gen/kw/search/v1/listing_pb.js';
import { GraphRetrieveRequestSchema, SearchGraphEntitiesRequestSchema } from '../gen/kw/search/v1/graph_pb.js';
import { GlobalSearchFilesRequestSchema, SearchFilesRequestSchema } from '../gen/kw/files/v1/files_pb.js';
import {
  AGENTIC_QUERY_MAX,
  FILE_SEARCH_EXCLUSIONS_MAX,
  FILE_SEARCH_QUERY_MAX_CHARS,
  GRAPH_QUERY_MAX,
} from './search.js';
import { WEBHOOK_NAME_MAX, WEBHOOK_URL_MAX } from './webhooks.js';
import { VISIBILITIES, WORKSPACE_DESCRIPTION_MAX, WORKSPACE_NAME_MAX } from './workspaces.js';

/**
 * What one field of a contract message may hold. Every kind present applies; a field that is
 * absent (an unset optional) passes. Characters are counted like the HTTP edge's class-validator
 * (`MaxLength`: a surrogate pair, or a character with its presentation selector, is one).
 */
export interface FieldRule {
  /** A string field: at most this many characters. */
  maxChars?: number;
  /** A string field: at most this many bytes of UTF-8. */
  maxBytes?: number;
  /** A repeated field: at most this many elements. */
  maxItems?: number;
  /** A repeated string field: each element at most this many characters. */
  eachMaxChars?: number;
  /** A string field: one of these values; empty is "not given" (proto3), which the handler defaults. */
  oneOf?: readonly string[];
  /**
   * A string field: must hold a character that is not white space (the REST DTOs' "must not be
   * blank"). Only on fields where empty is no "not given": required strings and proto3 `optional`s.
   */
  notBlank?: boolean;
}

/** The rules of one message, by field (the message's localName, which is also the REST field name). */
export interface MessageLimits {
  readonly schema: DescMessage;
  readonly fields: Readonly<Record<string, FieldRule>>;
}

type FieldsOf<S extends DescMessage> = Partial<
  Record<Exclude<keyof MessageShape<S>, '$typeName' | '$unknown'>, FieldRule>
>;

/** Rules for a message; the field names are checked against the generated message type. */
function limitsOf<S extends DescMessage>(schema: S, fields: FieldsOf<S>): MessageLimits {
  return { schema, fields: fields as Record<string, FieldRule> };
}

const tags: FieldRule = { maxItems: FRAGMENT_TAGS_MAX, eachMaxChars: FRAGMENT_TAG_MAX };
const fileExclusions: FieldRule = { maxItems: FILE_SEARCH_EXCLUSIONS_MAX, eachMaxChars: FILE_SEARCH_QUERY_MAX_CHARS };

/**
 * The field limits of every write message and of the query messages, enforced where data is written: `serve()` in
 * @kw/platform-transport refuses a message that breaks one before its handler runs, so a NATS
 * caller meets the same limits as a REST client (whose DTOs read the same constants and refuse
 * first). Fields are listed in the order the REST DTOs declare them, so a refusal names the same
 * first field. docs/limits.md is generated from this list.
 */
export const MESSAGE_LIMITS: readonly MessageLimits[] = [
  limitsOf(CreateFragmentTypeRequestSchema, {
    key: { maxChars: FRAGMENT_TYPE_KEY_MAX },
    name: { maxChars: FRAGMENT_TYPE_NAME_MAX },
    description: { maxChars: DESCRIPTION_MAX },
  }),
  limitsOf(UpdateFragmentTypeRequestSchema, {
    name: { maxChars: FRAGMENT_TYPE_NAME_MAX },
    description: { maxChars: DESCRIPTION_MAX },
  }),
  limitsOf(CreateFragmentRequestSchema, {
    title: { maxChars: FRAGMENT_TITLE_MAX, notBlank: true },
    content: { maxBytes: FRAGMENT_CONTENT_MAX_BYTES },
    summary: { maxChars: FRAGMENT_SUMMARY_MAX },
    tags,
    createdVia: { oneOf: CREATED_VIA },
    key: { maxChars: FRAGMENT_KEY_MAX },
  }),
  // Each item's fields are checked as CreateFragment's by the handler, with an outcome per item.
  limitsOf(BulkWriteFragmentsRequestSchema, { items: { maxItems: BULK_FRAGMENTS_MAX } }),
  limitsOf(UpdateFragmentRequestSchema, {
    title: { maxChars: FRAGMENT_TITLE_MAX, notBlank: true },
    content: { maxBytes: FRAGMENT_CONTENT_MAX_BYTES },
    summary: { maxChars: FRAGMENT_SUMMARY_MAX },
    tags,
    key: { maxChars: FRAGMENT_KEY_MAX },
    operations: { maxItems: PATCH_OPERATIONS_MAX },
  }),
  limitsOf(CreateCollectionRequestSchema, {
    name: { maxChars: COLLECTION_NAME_MAX },
    description: { maxChars: DESCRIPTION_MAX },
  }),
  limitsOf(UpdateCollectionRequestSchema, {
    name: { maxChars: COLLECTION_NAME_MAX },
    description: { maxChars: DESCRIPTION_MAX },
  }),
  limitsOf(AddCollectionFragmentsRequestSchema, { fragmentIds: { maxItems: COLLECTION_FRAGMENT_IDS_MAX } }),
  limitsOf(RemoveCollectionFragmentsRequestSchema, { fragmentIds: { maxItems: COLLECTION_FRAGMENT_IDS_MAX } }),
  limitsOf(LookupFragmentCollectionsRequestSchema, { fragmentIds: { maxItems: LOOKUP_FRAGMENT_IDS_MAX } }),
  limitsOf(CreateWorkspaceRequestSchema, {
    name: { maxChars: WORKSPACE_NAME_MAX },
    description: { maxChars: WORKSPACE_DESCRIPTION_MAX },
    visibility: { oneOf: VISIBILITIES },
  }),
  limitsOf(UpdateWorkspaceRequestSchema, {
    name: { maxChars: WORKSPACE_NAME_MAX },
    description: { maxChars: WORKSPACE_DESCRIPTION_MAX },
    visibility: { oneOf: VISIBILITIES },
  }),
  limitsOf(CreateWebhookRequestSchema, {
    name: { maxChars: WEBHOOK_NAME_MAX },
    url: { maxChars: WEBHOOK_URL_MAX },
  }),
  limitsOf(UpdateWebhookRequestSchema, {
    name: { maxChars: WEBHOOK_NAME_MAX },
    url: { maxChars: WEBHOOK_URL_MAX },
  }),
  limitsOf(CreateSecretRequestSchema, {
    name: { maxChars: VAULT_SECRET_NAME_MAX },
    type: { oneOf: VAULT_SECRET_TYPES },
    provider: { maxChars: VAULT_SECRET_PROVIDER_MAX },
    value: { maxBytes: VAULT_SECRET_VALUE_MAX_BYTES },
    description: { maxChars: VAULT_SECRET_DESCRIPTION_MAX },
  }),
  limitsOf(UpdateSecretRequestSchema, {
    name: { maxChars: VAULT_SECRET_NAME_MAX },
    provider: { maxChars: VAULT_SECRET_PROVIDER_MAX },
    value: { maxBytes: VAULT_SECRET_VALUE_MAX_BYTES },
    description: { maxChars: VAULT_SECRET_DESCRIPTION_MAX },
  }),
  limitsOf(CreateExpertRequestSchema, {
    name: { maxChars: EXPERT_NAME_MAX },
    systemPrompt: { maxChars: EXPERT_SYSTEM_PROMPT_MAX },
    enabledTools: { maxItems: EXPERT_TOOLS_MAX, eachMaxChars: 64 },
    routingKeywords: { maxItems: EXPERT_KEYWORDS_MAX, eachMaxChars: EXPERT_KEYWORD_MAX },
    modelPreference: { maxChars: EXPERT_MODEL_MAX },
  }),
  limitsOf(UpdateExpertRequestSchema, {
    name: { maxChars: EXPERT_NAME_MAX },
    systemPrompt: { maxChars: EXPERT_SYSTEM_PROMPT_MAX },
    enabledTools: { maxItems: EXPERT_TOOLS_MAX, eachMaxChars: 64 },
    routingKeywords: { maxItems: EXPERT_KEYWORDS_MAX, eachMaxChars: EXPERT_KEYWORD_MAX },
    modelPreference: { maxChars: EXPERT_MODEL_MAX },
  }),
  limitsOf(CreateConfigRequestSchema, {
    name: { maxChars: EMBED_CONFIG_NAME_MAX },
    model: { maxChars: EMBED_MODEL_MAX },
    systemPrompt: { maxChars: EMBED_SYSTEM_PROMPT_MAX },
    defaultContext: { maxItems: EMBED_DEFAULT_CONTEXT_MAX },
  }),
  limitsOf(UpdateConfigRequestSchema, {
    name: { maxChars: EMBED_CONFIG_NAME_MAX },
    model: { maxChars: EMBED_MODEL_MAX },
    systemPrompt: { maxChars: EMBED_SYSTEM_PROMPT_MAX },
    defaultContext: { maxItems: EMBED_DEFAULT_CONTEXT_MAX },
  }),
  limitsOf(CreateKeyRequestSchema, {
    label: { maxChars: EMBED_KEY_LABEL_MAX },
    allowedOrigins: { maxItems: EMBED_KEY_ORIGINS_MAX, eachMaxChars: EMBED_ORIGIN_MAX },
  }),
  limitsOf(UpdateKeyRequestSchema, {
    label: { maxChars: EMBED_KEY_LABEL_MAX },
    allowedOrigins: { maxItems: EMBED_KEY_ORIGINS_MAX, eachMaxChars: EMBED_ORIGIN_MAX },
  }),
  // Queries. Search's own (SearchRequest.search.query, nested) is checked by the search service.
  limitsOf(AgenticSearchRequestSchema, { query: { maxChars: AGENTIC_QUERY_MAX } }),
  limitsOf(SearchGraphEntitiesRequestSchema, { query: { maxChars: GRAPH_QUERY_MAX } }),
  limitsOf(GraphRetrieveRequestSchema, { query: { maxChars: GRAPH_QUERY_MAX } }),
  limitsOf(SearchFilesRequestSchema, { query: { maxChars: FILE_SEARCH_QUERY_MAX_CHARS }, exclude: fileExclusions }),
  limitsOf(GlobalSearchFilesRequestSchema, {
    query: { maxChars: FILE_SEARCH_QUERY_MAX_CHARS },
    exclude: fileExclusions,
  }),
];

const byTypeName = new Map(MESSAGE_LIMITS.map((limits) => [limits.schema.typeName, limits]));

/** The rules of a message by its proto type name (`kw.fragments.v1.CreateFragmentRequest`), if it has any. */
export function limitsFor(typeName: string): MessageLimits | undefined {
  return byTypeName.get(typeName);
}
