import { Body, HttpCode, Post, Query } from '@nestjs/common';
import { Operation } from '@vectorstore/auth';
import { ReadRouter } from '@vectorstore/replication';
import { RestQuery } from '../core/rest/rest-query';
import { encodeList } from './rest/chunked-json';
import {
  groupsToRest,
  readOptionsFromRest,
  scoredPointToRest,
  withGroupsReadConsistency,
  withReadConsistency,
} from './rest/points-read.rest-mapper';
import { batchOf, queryFromRest, queryGroupsFromRest, queryRequestAt } from './rest/query.rest-mapper';
import { HttpController } from '../core/rest/http-controller.decorator';
import { CollectionNameParam } from '../core/rest/collection-name.param';

/** The universal query: `/collections/{c}/points/query`, `…/query/batch`, `…/query/groups`. */
@HttpController('collections/:collection_name/points/query')
export class PointsQueryHttpController {
  constructor(private readonly reads: ReadRouter) {}

  @Operation('Points/Query')
  @Post()
  @HttpCode(200)
  async query(@CollectionNameParam() c: string, @Body() body: unknown, @Query() q: RestQuery): Promise<unknown> {
    const { timeout } = readOptionsFromRest(q);
    return {
      points: await encodeList(
        await this.reads.query(c, withReadConsistency(queryFromRest(body, timeout), q)),
        scoredPointToRest,
      ),
    };
  }

  @Operation('Points/QueryBatch')
  @Post('batch')
  @HttpCode(200)
  async queryBatch(@CollectionNameParam() c: string, @Body() body: unknown, @Query() q: RestQuery): Promise<unknown> {
    const { timeout } = readOptionsFromRest(q);
    const requests = batchOf(body, (issues, value, path) =>
      withReadConsistency(queryRequestAt(issues, value, path, timeout), q),
    );
    const results = await this.reads.batch(c, requests, this.reads.query);
    return results.map((points) => ({ points: points.map(scoredPointToRest) }));
  }

  @Operation('Points/QueryGroups')
  @Post('groups')
  @HttpCode(200)
  async queryGroups(@CollectionNameParam() c: string, @Body() body: unknown, @Query() q: RestQuery): Promise<unknown> {
    const { timeout } = readOptionsFromRest(q);
    return groupsToRest(
      await this.reads.queryGroups(c, withGroupsReadConsistency(queryGroupsFromRest(body, timeout), q)),
    );
  }
}
