import { Body, HttpCode, Get, Param, Post, Query } from '@nestjs/common';
import { Operation } from '@vectorstore/auth';
import { DomainError } from '@vectorstore/common';
import { ReadRouter } from '@vectorstore/replication';
import { RestQuery } from '../core/rest/rest-query';
import { encodeList } from './rest/chunked-json';
import { pointIdFromPath } from './rest/point-id.rest-mapper';
import {
  countFromRest,
  facetToRest,
  facetFromRest,
  getPointRequest,
  matrixFromRest,
  matrixOffsetsToRest,
  matrixPairsToRest,
  recordToRest,
  retrieveFromRest,
  scrollFromRest,
} from './rest/points-read.rest-mapper';
import { HttpController } from '../core/rest/http-controller.decorator';
import { CollectionNameParam } from '../core/rest/collection-name.param';

/** Point reads: get by id, retrieve, scroll, count, facet and the distance matrix. */
@HttpController('collections/:collection_name')
export class PointsReadHttpController {
  constructor(private readonly reads: ReadRouter) {}

  @Operation('Points/Get')
  @Get('points/:id')
  async get(@CollectionNameParam() c: string, @Param('id') id: string, @Query() q: RestQuery): Promise<unknown> {
    const pointId = pointIdFromPath(id);
    const [point] = await this.reads.get(c, getPointRequest(pointId, q));
    if (!point) throw DomainError.notFound(`Not found: Point with id ${id} does not exists!`);
    return recordToRest(point);
  }

  @Operation('Points/Get')
  @Post('points')
  @HttpCode(200)
  async retrieve(@CollectionNameParam() c: string, @Body() body: unknown, @Query() q: RestQuery): Promise<unknown> {
    return encodeList(await this.reads.get(c, retrieveFromRest(body, q)), recordToRest);
  }

  @Operation('Points/Scroll')
  @Post('points/scroll')
  @HttpCode(200)
  async scroll(@CollectionNameParam() c: string, @Body() body: unknown, @Query() q: RestQuery): Promise<unknown> {
    const page = await this.reads.scroll(c, scrollFromRest(body, q));
    return { points: await encodeList(page.points, recordToRest), next_page_offset: page.nextPageOffset ?? null };
  }

  @Operation('Points/Count')
  @Post('points/count')
  @HttpCode(200)
  async count(@CollectionNameParam() c: string, @Body() body: unknown, @Query() q: RestQuery): Promise<unknown> {
    return { count: await this.reads.count(c, countFromRest(body, q)) };
  }

  @Operation('Points/Facet')
  @Post('facet')
  @HttpCode(200)
  async facet(@CollectionNameParam() c: string, @Body() body: unknown, @Query() q: RestQuery): Promise<unknown> {
    return facetToRest(await this.reads.facet(c, facetFromRest(body, q)));
  }

  @Operation('Points/SearchMatrixPairs')
  @Post('points/search/matrix/pairs')
  @HttpCode(200)
  async matrixPairs(@CollectionNameParam() c: string, @Body() body: unknown, @Query() q: RestQuery): Promise<unknown> {
    return matrixPairsToRest(await this.reads.distanceMatrix(c, matrixFromRest(body, q)));
  }

  @Operation('Points/SearchMatrixOffsets')
  @Post('points/search/matrix/offsets')
  @HttpCode(200)
  async matrixOffsets(
    @CollectionNameParam() c: string,
    @Body() body: unknown,
    @Query() q: RestQuery,
  ): Promise<unknown> {
    return matrixOffsetsToRest(await this.reads.distanceMatrix(c, matrixFromRest(body, q)));
  }
}
