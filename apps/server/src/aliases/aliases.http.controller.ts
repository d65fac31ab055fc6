import { Body, Get, HttpCode, Post, Query } from '@nestjs/common';
import { Operation, type Principal, visibleCollections } from '@vectorstore/auth';
import { CurrentPrincipal } from '../auth/http/current-principal.decorator';
import { AliasesService } from '@vectorstore/collections';
import { readMetaTimeout, RestQuery } from '../core/rest/rest-query';
import { aliasActionsFromRest, aliasesToRest } from './rest/aliases.rest-mapper';
import { HttpController } from '../core/rest/http-controller.decorator';
import { CollectionNameParam } from '../core/rest/collection-name.param';

/** Qdrant's alias routes. */
@HttpController()
export class AliasesHttpController {
  constructor(private readonly aliases: AliasesService) {}

  @Operation('Collections/UpdateAliases')
  @Post('collections/aliases')
  @HttpCode(200)
  update(@Body() body: unknown, @Query() query: RestQuery): Promise<boolean> {
    const timeout = readMetaTimeout(query);
    return this.aliases.update(aliasActionsFromRest(body), timeout);
  }

  @Operation('Collections/ListCollectionAliases')
  @Get('collections/:collection_name/aliases')
  listFor(@CollectionNameParam() name: string): unknown {
    return aliasesToRest(this.aliases.listFor(name));
  }

  @Operation('Collections/ListAliases')
  @Get('aliases')
  list(@CurrentPrincipal() principal: Principal): unknown {
    return aliasesToRest(this.aliases.list(visibleCollections(principal.access)));
  }
}
