import { Body, Delete, Get, Patch, Put, Query } from '@nestjs/common';
import { Operation, type Principal, visibleCollections } from '@vectorstore/auth';
import { CurrentPrincipal } from '../auth/http/current-principal.decorator';
import { CollectionsService } from '@vectorstore/collections';
import { readMetaTimeout, RestQuery } from '../core/rest/rest-query';
import { collectionInfoToRest } from './rest/collection-info.rest-mapper';
import { createCollectionFromRest, updateCollectionFromRest } from './rest/collections.rest-mapper';
import { CollectionNameParam, NewCollectionNameParam } from '../core/rest/collection-name.param';
import { HttpController } from '../core/rest/http-controller.decorator';

/** Qdrant's `/collections` routes; answers go out in the REST envelope. */
@HttpController('collections')
export class CollectionsHttpController {
  constructor(private readonly collections: CollectionsService) {}

  @Operation('Collections/List')
  @Get()
  list(@CurrentPrincipal() principal: Principal): { collections: Array<{ name: string }> } {
    return { collections: this.collections.list(visibleCollections(principal.access)).map((name) => ({ name })) };
  }

  @Operation('Collections/Get')
  @Get(':collection_name')
  async get(@CollectionNameParam() name: string): Promise<unknown> {
    return collectionInfoToRest(await this.collections.describe(name));
  }

  @Operation('Collections/CollectionExists')
  @Get(':collection_name/exists')
  exists(@CollectionNameParam() name: string): { exists: boolean } {
    return { exists: this.collections.exists(name) };
  }

  @Operation('Collections/Create')
  @Put(':collection_name')
  create(@NewCollectionNameParam() name: string, @Body() body: unknown, @Query() query: RestQuery): Promise<boolean> {
    return this.collections.create(createCollectionFromRest(name, body, query));
  }

  @Operation('Collections/Update')
  @Patch(':collection_name')
  update(@CollectionNameParam() name: string, @Body() body: unknown, @Query() query: RestQuery): Promise<boolean> {
    return this.collections.update(updateCollectionFromRest(name, body, query));
  }

  @Operation('Collections/Delete')
  @Delete(':collection_name')
  delete(@CollectionNameParam() name: string, @Query() query: RestQuery): Promise<boolean> {
    return this.collections.delete(name, readMetaTimeout(query));
  }
}
