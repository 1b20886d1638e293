import { Injectable } from '@nestjs/common';
import {
  OAuthApplicationsService,
  type CreateApplicationRequest,
  type DecideAuthorizationRequest,
  type DeleteApplicationRequest,
  type GetApplicationRequest,
  type RegisterClientRequest,
  type RotateApplicationSecretRequest,
  type StartAuthorizationRequest,
  type UpdateApplicationRequest,
} from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { Handles } from '@kw/platform-transport';
import { Applications } from './oauth/applications.js';
import { Authorizations } from './oauth/authorizations.js';

/** OAuthApplicationsService over the transport: each method hands over to its use case. */
@Injectable()
export class ApplicationsHandlers {
  constructor(
    private readonly applications: Applications,
    private readonly authorizations: Authorizations,
  ) {}

  @Handles(OAuthApplicationsService.method.listApplications)
  async listApplications(_input: unknown, context: RequestContext) {
    return { applications: await this.applications.list(context) };
  }

  @Handles(OAuthApplicationsService.method.createApplication)
  createApplication(input: CreateApplicationRequest, context: RequestContext) {
    return this.applications.create(input, context);
  }

  @Handles(OAuthApplicationsService.method.getApplication)
  async getApplication(input: GetApplicationRequest, context: RequestContext) {
    return { application: await this.applications.get(input.id, context) };
  }

  @Handles(OAuthApplicationsService.method.updateApplication)
  async updateApplication(input: UpdateApplicationRequest, context: RequestContext) {
    return { application: await this.applications.update(input, context) };
  }

  @Handles(OAuthApplicationsService.method.deleteApplication)
  async deleteApplication(input: DeleteApplicationRequest, context: RequestContext) {
    await this.applications.delete(input.id, context);
    return {};
  }

  @Handles(OAuthApplicationsService.method.rotateApplicationSecret)
  rotateApplicationSecret(input: RotateApplicationSecretRequest, context: RequestContext) {
    return this.applications.rotateSecret(input.id, input.overlapHours, context);
  }

  /** RFC 7591: public, no caller. */
  @Handles(OAuthApplicationsService.method.registerClient)
  registerClient(input: RegisterClientRequest) {
    return this.applications.register(input);
  }

  /** GET /oauth2/authorize: public, no caller (the consent page signs the person in). */
  @Handles(OAuthApplicationsService.method.startAuthorization)
  startAuthorization(input: StartAuthorizationRequest, context: RequestContext) {
    return this.authorizations.start(input, context);
  }

  @Handles(OAuthApplicationsService.method.decideAuthorization)
  decideAuthorization(input: DecideAuthorizationRequest, context: RequestContext) {
    return this.authorizations.decide(input, context);
  }
}
