import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { PUBLIC_EXTENSION } from './auth/auth.metadata.js';
import { QUERY_KEY_PARAM } from './auth/query-key.js';

export interface OpenApiSettings {
  title: string;
  version: string;
  description: string;
  serverUrl: string;
}

export const OPENAPI_JSON_PATH = 'api/docs';
export const OPENAPI_VIEWER_PATH = 'docs/api-reference';

/** Builds the OpenAPI 3.1 document from the controllers and DTOs the application has. */
export function buildOpenApiDocument(app: NestFastifyApplication, settings: OpenApiSettings): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle(settings.title)
    .setDescription(settings.description)
    .setVersion(settings.version)
    .addServer(settings.serverUrl)
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'Personal access token or OAuth access token' },
      'bearer',
    )
    .addCookieAuth(
      'kw_session',
      {
        type: 'apiKey',
        in: 'cookie',
        name: 'kw_session',
        description:
          'Browser session from POST /api/auth/sign-in; state-changing requests also need the x-csrf-token header (double submit of the kw_csrf cookie)',
      },
      'session',
    )
    .addApiKey(
      {
        type: 'apiKey',
        in: 'query',
        name: QUERY_KEY_PARAM,
        description:
          "Embed key (`kwek_…`) of an embed configuration, for /api/v2/embed/*; the host page's user comes as `Authorization: Bearer <JWT of the configuration's trusted issuer>`, or from the key's scoped token",
      },
      'embedKey',
    )
    // Every route needs one of the two unless it says otherwise (public routes: `security: []`).
    .addSecurityRequirements('bearer')
    .addSecurityRequirements('session')
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
  });
  return markPublicOperations(document);
}

/**
 * Public routes need no bearer token or session: `security: []` overrides the document's
 * default, unless the route names its own scheme (the embed key).
 */
function markPublicOperations(document: OpenAPIObject): OpenAPIObject {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as Record<string, unknown>[]) {
      if (operation && typeof operation === 'object' && operation[PUBLIC_EXTENSION]) {
        delete operation[PUBLIC_EXTENSION];
        operation.security ??= [];
      }
    }
  }
  return document;
}

/**
 * Serves the document at GET /api/docs and the interactive viewer at /docs/api-reference.
 * The viewer's assets come from the installed swagger-ui-dist package, never from a CDN.
 */
export function serveOpenApi(app: NestFastifyApplication, document: OpenAPIObject): void {
  SwaggerModule.setup(OPENAPI_VIEWER_PATH, app, document, {
    jsonDocumentUrl: OPENAPI_JSON_PATH,
    raw: ['json'],
    customSiteTitle: `${document.info.title} API reference`,
    swaggerOptions: { persistAuthorization: false, displayRequestDuration: true },
  });
}

/** A separate document for the routes under one prefix (the OpenAI-compatible API's /api/v1). */
export interface OpenApiSubsetSettings {
  /** Where the document is served, e.g. /api/v1/openapi.json. */
  path: string;
  pathPrefix: string;
  title: string;
  description: string;
}

const OPENAI_ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type', 'code', 'param'],
      properties: {
        message: { type: 'string' },
        type: { type: 'string', examples: ['invalid_request_error'] },
        code: { type: 'string', examples: ['model_not_found'] },
        param: { type: 'string', description: 'The offending field, or empty' },
      },
    },
  },
};

/** Every `#/components/schemas/<name>` reached from `value`, followed through the schemas themselves. */
function referencedSchemas(value: unknown, all: Record<string, unknown>, found: Record<string, unknown>): void {
  if (Array.isArray(value)) {
    for (const item of value) referencedSchemas(item, all, found);
    return;
  }
  if (!value || typeof value !== 'object') return;
  for (const [key, inner] of Object.entries(value)) {
    if (key === '$ref' && typeof inner === 'string' && inner.startsWith('#/components/schemas/')) {
      const name = inner.slice('#/components/schemas/'.length);
      if (!(name in found) && name in all) {
        found[name] = all[name];
        referencedSchemas(all[name], all, found);
      }
    } else referencedSchemas(inner, all, found);
  }
}

/**
 * The part of the platform's document under `settings.pathPrefix`, as a document of its own:
 * the same operations and schemas (generated from the same controllers and DTOs), bearer
 * authentication only, and the OpenAI error body on every failure.
 */
export function openApiSubset(document: OpenAPIObject, settings: OpenApiSubsetSettings): OpenAPIObject {
  const paths: OpenAPIObject['paths'] = {};
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith(settings.pathPrefix)) continue;
    const copy = structuredClone(item) as Record<string, Record<string, unknown>>;
    for (const operation of Object.values(copy)) {
      if (!operation || typeof operation !== 'object' || !('responses' in operation)) continue;
      const security = operation.security as Record<string, unknown>[] | undefined;
      if (security) operation.security = security.filter((s) => Object.keys(s).every((k) => k === 'bearer'));
      const responses = operation.responses as Record<string, unknown>;
      const error = {
        description: 'Error in the OpenAI shape',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/OpenAiError' } } },
      };
      responses['4XX'] ??= error;
      responses['5XX'] ??= error;
    }
    paths[path] = copy;
  }
  paths[settings.path] = {
    get: {
      operationId: 'OpenApi_document',
      summary: 'This document (OpenAPI 3.1)',
      security: [],
      responses: {
        '200': { description: 'The OpenAPI document', content: { 'application/json': { schema: { type: 'object' } } } },
      },
    },
  };
  const schemas: Record<string, unknown> = {};
  referencedSchemas(paths, (document.components?.schemas ?? {}) as Record<string, unknown>, schemas);
  schemas.OpenAiError = OPENAI_ERROR_SCHEMA;
  const bearer = document.components?.securitySchemes?.bearer;
  return {
    openapi: '3.1.0',
    info: { title: settings.title, description: settings.description, version: document.info.version },
    servers: document.servers,
    security: [{ bearer: [] }],
    tags: document.tags?.filter((t) =>
      Object.values(paths).some((item) =>
        Object.values(item as Record<string, { tags?: string[] }>).some((op) => op?.tags?.includes(t.name)),
      ),
    ),
    components: {
      ...(bearer ? { securitySchemes: { bearer } } : {}),
      schemas: schemas as NonNullable<OpenAPIObject['components']>['schemas'],
    },
    paths,
  };
}

/** Serves `openApiSubset` of the document at `settings.path` (no credential needed, like /api/docs). */
export function serveOpenApiSubset(
  app: NestFastifyApplication,
  document: OpenAPIObject,
  settings: OpenApiSubsetSettings,
): void {
  const subset = JSON.stringify(openApiSubset(document, settings));
  app
    .getHttpAdapter()
    .getInstance()
    .get(settings.path, (_request, reply) => {
      void reply.type('application/json; charset=utf-8').send(subset);
    });
}
