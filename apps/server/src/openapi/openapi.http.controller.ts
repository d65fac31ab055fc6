import { Controller, Get, Header, type Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { Public } from '@vectorstore/auth';
import { SERVER_VERSION } from '../version';
import { openApiDocument, routesOf } from './openapi.document';

/**
 * `GET /openapi.json`: the REST API described in OpenAPI 3, built once from the running app's controllers (the
 * dashboard's console completes paths and body fields from it). Open like `/`: it describes the API, not data.
 */
@Controller()
@Public()
export class OpenApiHttpController {
  private document?: string;

  constructor(private readonly modules: ModulesContainer) {}

  @Get('openapi.json')
  @Header('Content-Type', 'application/json; charset=utf-8')
  describe(): string {
    this.document ??= JSON.stringify(openApiDocument(routesOf(this.controllers()), SERVER_VERSION));
    return this.document;
  }

  private controllers(): Type<unknown>[] {
    const seen = new Set<Type<unknown>>();
    for (const module of this.modules.values())
      for (const wrapper of module.controllers.values())
        if (wrapper.metatype) seen.add(wrapper.metatype as Type<unknown>);
    return [...seen];
  }
}
