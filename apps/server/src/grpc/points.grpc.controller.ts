import { Controller } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import {
  DistanceMatrixService,
  PointsReader,
  PointsWriter,
  QueryEngine,
  VectorNameOperations,
} from '@vectorstore/points';
import type { ClearPayloadPoints__Output } from './generated/vectorstore/ClearPayloadPoints';
import type { CountPoints__Output } from './generated/vectorstore/CountPoints';
import type { CreateFieldIndexCollection__Output } from './generated/vectorstore/CreateFieldIndexCollection';
import type { CreateVectorNameRequest__Output } from './generated/vectorstore/CreateVectorNameRequest';
import type { DeleteFieldIndexCollection__Output } from './generated/vectorstore/DeleteFieldIndexCollection';
import type { DeletePayloadPoints__Output } from './generated/vectorstore/DeletePayloadPoints';
import type { DeletePointVectors__Output } from './generated/vectorstore/DeletePointVectors';
import type { DeletePoints__Output } from './generated/vectorstore/DeletePoints';
import type { DeleteVectorNameRequest__Output } from './generated/vectorstore/DeleteVectorNameRequest';
import type { DiscoverBatchPoints__Output } from './generated/vectorstore/DiscoverBatchPoints';
import type { DiscoverPoints__Output } from './generated/vectorstore/DiscoverPoints';
import type { FacetCounts__Output } from './generated/vectorstore/FacetCounts';
import type { GetPoints__Output } from './generated/vectorstore/GetPoints';
import type { QueryBatchPoints__Output } from './generated/vectorstore/QueryBatchPoints';
import type { QueryPointGroups__Output } from './generated/vectorstore/QueryPointGroups';
import type { QueryPoints__Output } from './generated/vectorstore/QueryPoints';
import type { RecommendBatchPoints__Output } from './generated/vectorstore/RecommendBatchPoints';
import type { RecommendPointGroups__Output } from './generated/vectorstore/RecommendPointGroups';
import type { RecommendPoints__Output } from './generated/vectorstore/RecommendPoints';
import type { ScrollPoints__Output } from './generated/vectorstore/ScrollPoints';
import type { SearchBatchPoints__Output } from './generated/vectorstore/SearchBatchPoints';
import type { SearchMatrixPoints__Output } from './generated/vectorstore/SearchMatrixPoints';
import type { SearchPointGroups__Output } from './generated/vectorstore/SearchPointGroups';
import type { SearchPoints__Output } from './generated/vectorstore/SearchPoints';
import type { SetPayloadPoints__Output } from './generated/vectorstore/SetPayloadPoints';
import type { UpdateBatchPoints__Output } from './generated/vectorstore/UpdateBatchPoints';
import type { UpdatePointVectors__Output } from './generated/vectorstore/UpdatePointVectors';
import type { UpsertPoints__Output } from './generated/vectorstore/UpsertPoints';
import * as map from './mappers/points';

type Response = object;

/**
 * `Points` service, at /vectorstore.Points/* and /qdrant.Points/*: map the request, call the points
 * services, map the answer. `time` is added by the timing interceptor.
 */
@Controller()
export class PointsGrpcController {
  constructor(
    private readonly writer: PointsWriter,
    private readonly reader: PointsReader,
    private readonly queries: QueryEngine,
    private readonly matrix: DistanceMatrixService,
    private readonly vectorNames: VectorNameOperations,
  ) {}

  private async write(mapping: map.PointsWriteMapping): Promise<Response> {
    return map.pointsOperationResponseToProto(await this.writer.update(mapping.collectionName, mapping.request));
  }

  @GrpcMethod('Points', 'Upsert')
  upsert(r: UpsertPoints__Output): Promise<Response> {
    return this.write(map.upsertPointsFromProto(r));
  }

  @GrpcMethod('Points', 'Delete')
  delete(r: DeletePoints__Output): Promise<Response> {
    return this.write(map.deletePointsFromProto(r));
  }

  @GrpcMethod('Points', 'UpdateVectors')
  updateVectors(r: UpdatePointVectors__Output): Promise<Response> {
    return this.write(map.updatePointVectorsFromProto(r));
  }

  @GrpcMethod('Points', 'DeleteVectors')
  deleteVectors(r: DeletePointVectors__Output): Promise<Response> {
    return this.write(map.deletePointVectorsFromProto(r));
  }

  @GrpcMethod('Points', 'SetPayload')
  setPayload(r: SetPayloadPoints__Output): Promise<Response> {
    return this.write(map.setPayloadFromProto(r));
  }

  @GrpcMethod('Points', 'OverwritePayload')
  overwritePayload(r: SetPayloadPoints__Output): Promise<Response> {
    return this.write(map.overwritePayloadFromProto(r));
  }

  @GrpcMethod('Points', 'DeletePayload')
  deletePayload(r: DeletePayloadPoints__Output): Promise<Response> {
    return this.write(map.deletePayloadFromProto(r));
  }

  @GrpcMethod('Points', 'ClearPayload')
  clearPayload(r: ClearPayloadPoints__Output): Promise<Response> {
    return this.write(map.clearPayloadFromProto(r));
  }

  @GrpcMethod('Points', 'CreateFieldIndex')
  createFieldIndex(r: CreateFieldIndexCollection__Output): Promise<Response> {
    return this.write(map.createFieldIndexFromProto(r));
  }

  @GrpcMethod('Points', 'DeleteFieldIndex')
  deleteFieldIndex(r: DeleteFieldIndexCollection__Output): Promise<Response> {
    return this.write(map.deleteFieldIndexFromProto(r));
  }

  @GrpcMethod('Points', 'UpdateBatch')
  async updateBatch(r: UpdateBatchPoints__Output): Promise<Response> {
    const m = map.updateBatchFromProto(r);
    const results = await this.writer.updateBatch(m.collectionName, m.operations, {
      wait: m.wait,
      timeout: m.timeout,
      shardKeySelectors: m.shardKeySelectors,
    });
    return map.updateBatchResponseToProto(results);
  }

  @GrpcMethod('Points', 'Get')
  get(r: GetPoints__Output): Response {
    const m = map.getPointsFromProto(r);
    return map.getResponseToProto(this.reader.get(m.collectionName, m.request));
  }

  @GrpcMethod('Points', 'Scroll')
  scroll(r: ScrollPoints__Output): Response {
    const m = map.scrollPointsFromProto(r);
    const page = this.reader.scroll(m.collectionName, m.request);
    return map.scrollResponseToProto(page.points, page.nextPageOffset);
  }

  @GrpcMethod('Points', 'Count')
  count(r: CountPoints__Output): Response {
    const m = map.countPointsFromProto(r);
    return map.countResponseToProto(this.reader.count(m.collectionName, m.request));
  }

  @GrpcMethod('Points', 'Facet')
  facet(r: FacetCounts__Output): Response {
    const m = map.facetCountsFromProto(r);
    return map.facetResponseToProto(this.reader.facet(m.collectionName, m.request));
  }

  @GrpcMethod('Points', 'Search')
  search(r: SearchPoints__Output): Response {
    const m = map.searchPointsFromProto(r);
    return map.scoredPointsResponseToProto(this.queries.search(m.collectionName, m.request));
  }

  @GrpcMethod('Points', 'SearchBatch')
  searchBatch(r: SearchBatchPoints__Output): Response {
    const m = map.searchBatchFromProto(r);
    return map.batchResponseToProto(this.queries.batch(m.collectionName, m.requests, this.queries.search));
  }

  @GrpcMethod('Points', 'Recommend')
  recommend(r: RecommendPoints__Output): Response {
    const m = map.recommendPointsFromProto(r);
    return map.scoredPointsResponseToProto(this.queries.recommend(m.collectionName, m.request));
  }

  @GrpcMethod('Points', 'RecommendBatch')
  recommendBatch(r: RecommendBatchPoints__Output): Response {
    const m = map.recommendBatchFromProto(r);
    return map.batchResponseToProto(this.queries.batch(m.collectionName, m.requests, this.queries.recommend));
  }

  @GrpcMethod('Points', 'Query')
  query(r: QueryPoints__Output): Response {
    const m = map.queryPointsFromProto(r);
    return map.scoredPointsResponseToProto(this.queries.query(m.collectionName, m.request));
  }

  @GrpcMethod('Points', 'QueryBatch')
  queryBatch(r: QueryBatchPoints__Output): Response {
    const m = map.queryBatchFromProto(r);
    return map.batchResponseToProto(this.queries.batch(m.collectionName, m.requests, this.queries.query));
  }

  @GrpcMethod('Points', 'QueryGroups')
  queryGroups(r: QueryPointGroups__Output): Response {
    const m = map.queryGroupsFromProto(r);
    return map.groupsResponseToProto(this.queries.queryGroups(m.collectionName, m.request));
  }

  @GrpcMethod('Points', 'SearchGroups')
  searchGroups(r: SearchPointGroups__Output): Response {
    const m = map.searchGroupsFromProto(r);
    return map.groupsResponseToProto(this.queries.searchGroups(m.collectionName, m.request));
  }

  @GrpcMethod('Points', 'RecommendGroups')
  recommendGroups(r: RecommendPointGroups__Output): Response {
    const m = map.recommendGroupsFromProto(r);
    return map.groupsResponseToProto(this.queries.recommendGroups(m.collectionName, m.request));
  }

  @GrpcMethod('Points', 'Discover')
  discover(r: DiscoverPoints__Output): Response {
    const m = map.discoverPointsFromProto(r);
    return map.scoredPointsResponseToProto(this.queries.discover(m.collectionName, m.request));
  }

  @GrpcMethod('Points', 'DiscoverBatch')
  discoverBatch(r: DiscoverBatchPoints__Output): Response {
    const m = map.discoverBatchFromProto(r);
    return map.batchResponseToProto(this.queries.batch(m.collectionName, m.requests, this.queries.discover));
  }

  @GrpcMethod('Points', 'CreateVectorName')
  async createVectorName(r: CreateVectorNameRequest__Output): Promise<Response> {
    const m = map.createVectorNameFromProto(r);
    return map.vectorNameResponseToProto(await this.vectorNames.create(m.request, m.wait));
  }

  @GrpcMethod('Points', 'DeleteVectorName')
  async deleteVectorName(r: DeleteVectorNameRequest__Output): Promise<Response> {
    const m = map.deleteVectorNameFromProto(r);
    return map.vectorNameResponseToProto(await this.vectorNames.delete(m.request, m.wait));
  }

  @GrpcMethod('Points', 'SearchMatrixPairs')
  searchMatrixPairs(r: SearchMatrixPoints__Output): Response {
    const m = map.searchMatrixFromProto(r);
    return map.matrixPairsToProto(this.matrix.compute(m.collectionName, m.request));
  }

  @GrpcMethod('Points', 'SearchMatrixOffsets')
  searchMatrixOffsets(r: SearchMatrixPoints__Output): Response {
    const m = map.searchMatrixFromProto(r);
    return map.matrixOffsetsToProto(this.matrix.compute(m.collectionName, m.request));
  }
}
