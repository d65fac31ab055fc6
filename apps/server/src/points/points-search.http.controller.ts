import { Body, HttpCode, Post, Query } from '@nestjs/common';
import { Operation } from '@vectorstore/auth';
import { ScoredPoint } from '@vectorstore/points';
import { ReadRouter } from '@vectorstore/replication';
import { RestQuery } from '../core/rest/rest-query';
import {
  groupsToRest,
  readOptionsFromRest,
  scoredPointToRest,
  withGroupsReadConsistency,
  withReadConsistency,
} from './rest/points-read.rest-mapper';
import { batchOf } from './rest/query.rest-mapper';
import {
  discoverRequestAt,
  recommendGroupsFromRest,
  recommendRequestAt,
  searchGroupsFromRest,
  searchRequestAt,
  singleOf,
} from './rest/search.rest-mapper';
import { HttpController } from '../core/rest/http-controller.decorator';
import { CollectionNameParam } from '../core/rest/collection-name.param';

const points = (list: readonly ScoredPoint[]): unknown[] => list.map(scoredPointToRest);

/**
 * Search, recommend and discover (+ batch, groups): gone from openapi 1.19, still served by Qdrant
 * and called by js-client-rest ≤1.18 and older integrations.
 */
@HttpController('collections/:collection_name/points')
export class PointsSearchHttpController {
  constructor(private readonly reads: ReadRouter) {}

  @Operation('Points/Search')
  @Post('search')
  @HttpCode(200)
  async search(@CollectionNameParam() c: string, @Body() body: unknown, @Query() q: RestQuery): Promise<unknown> {
    return points(
      await this.reads.search(
        c,
        withReadConsistency(singleOf(body, searchRequestAt, readOptionsFromRest(q).timeout), q),
      ),
    );
  }

  @Operation('Points/SearchBatch')
  @Post('search/batch')
  @HttpCode(200)
  async searchBatch(@CollectionNameParam() c: string, @Body() body: unknown, @Query() q: RestQuery): Promise<unknown> {
    const { timeout } = readOptionsFromRest(q);
    const requests = batchOf(body, (issues, value, path) =>
      withReadConsistency(searchRequestAt(issues, value, path, timeout), q),
    );
    return (await this.reads.batch(c, requests, this.reads.search)).map(points);
  }

  @Operation('Points/SearchGroups')
  @Post('search/groups')
  @HttpCode(200)
  async searchGroups(@CollectionNameParam() c: string, @Body() body: unknown, @Query() q: RestQuery): Promise<unknown> {
    return groupsToRest(
      await this.reads.searchGroups(
        c,
        withGroupsReadConsistency(searchGroupsFromRest(body, readOptionsFromRest(q).timeout), q),
      ),
    );
  }

  @Operation('Points/Recommend')
  @Post('recommend')
  @HttpCode(200)
  async recommend(@CollectionNameParam() c: string, @Body() body: unknown, @Query() q: RestQuery): Promise<unknown> {
    return points(
      await this.reads.recommend(
        c,
        withReadConsistency(singleOf(body, recommendRequestAt, readOptionsFromRest(q).timeout), q),
      ),
    );
  }

  @Operation('Points/RecommendBatch')
  @Post('recommend/batch')
  @HttpCode(200)
  async recommendBatch(
    @CollectionNameParam() c: string,
    @Body() body: unknown,
    @Query() q: RestQuery,
  ): Promise<unknown> {
    const { timeout } = readOptionsFromRest(q);
    const requests = batchOf(body, (issues, value, path) =>
      withReadConsistency(recommendRequestAt(issues, value, path, timeout), q),
    );
    return (await this.reads.batch(c, requests, this.reads.recommend)).map(points);
  }

  @Operation('Points/RecommendGroups')
  @Post('recommend/groups')
  @HttpCode(200)
  async recommendGroups(
    @CollectionNameParam() c: string,
    @Body() body: unknown,
    @Query() q: RestQuery,
  ): Promise<unknown> {
    return groupsToRest(
      await this.reads.recommendGroups(
        c,
        withGroupsReadConsistency(recommendGroupsFromRest(body, readOptionsFromRest(q).timeout), q),
      ),
    );
  }

  @Operation('Points/Discover')
  @Post('discover')
  @HttpCode(200)
  async discover(@CollectionNameParam() c: string, @Body() body: unknown, @Query() q: RestQuery): Promise<unknown> {
    return points(
      await this.reads.discover(
        c,
        withReadConsistency(singleOf(body, discoverRequestAt, readOptionsFromRest(q).timeout), q),
      ),
    );
  }

  @Operation('Points/DiscoverBatch')
  @Post('discover/batch')
  @HttpCode(200)
  async discoverBatch(
    @CollectionNameParam() c: string,
    @Body() body: unknown,
    @Query() q: RestQuery,
  ): Promise<unknown> {
    const { timeout } = readOptionsFromRest(q);
    const requests = batchOf(body, (issues, value, path) =>
      withReadConsistency(discoverRequestAt(issues, value, path, timeout), q),
    );
    return (await this.reads.batch(c, requests, this.reads.discover)).map(points);
  }
}
