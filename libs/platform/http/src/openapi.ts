import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { PUBLIC_EXTENSION } from './auth/auth.metadata.js';

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
    // Every route needs one of the two unless it says otherwise (public routes: `security: []`).
    .addSecurityRequirements('bearer')
    .addSecurityRequirements('session')
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
  });
  return markPublicOperations(document);
}

/** Public routes need no credential: `security: []` overrides the document's default. */
function markPublicOperations(document: OpenAPIObject): OpenAPIObject {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as Record<string, unknown>[]) {
      if (operation && typeof operation === 'object' && operation[PUBLIC_EXTENSION]) {
        delete operation[PUBLIC_EXTENSION];
        operation.security = [];
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
