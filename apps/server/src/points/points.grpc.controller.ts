import { Controller } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import { Operation } from '@vectorstore/auth';
import { PointsWriter, VectorNameOperations } from '@vectorstore/points';
import { ReadRouter } from '@vectorstore/replication';
import type { ClearPayloadPoints__Output } from '../grpc/generated/vectorstore/ClearPayloadPoints';
import type { CountPoints__Output } from '../grpc/generated/vectorstore/CountPoints';
import type { CreateFieldIndexCollection__Output } from '../grpc/generated/vectorstore/CreateFieldIndexCollection';
import type { CreateVectorNameRequest__Output } from '../grpc/generated/vectorstore/CreateVectorNameRequest';
import type { DeleteFieldIndexCollection__Output } from '../grpc/generated/vectorstore/DeleteFieldIndexCollection';
import type { DeletePayloadPoints__Output } from '../grpc/generated/vectorstore/DeletePayloadPoints';
import type { DeletePointVectors__Output } from '../grpc/generated/vectorstore/DeletePointVectors';
import type { DeletePoints__Output } from '../grpc/generated/vectorstore/DeletePoints';
import type { DeleteVectorNameRequest__Output } from '../grpc/generated/vectorstore/DeleteVectorNameRequest';
import type { DiscoverBatchPoints__Output } from '../grpc/generated/vectorstore/DiscoverBatchPoints';
import type { DiscoverPoints__Output } from '../grpc/generated/vectorstore/DiscoverPoints';
import type { FacetCounts__Output } from '../grpc/generated/vectorstore/FacetCounts';
import type { GetPoints__Output } from '../grpc/generated/vectorstore/GetPoints';
import type { QueryBatchPoints__Output } from '../grpc/generated/vectorstore/QueryBatchPoints';
import type { QueryPointGroups__Output } from '../grpc/generated/vectorstore/QueryPointGroups';
import type { QueryPoints__Output } from '../grpc/generated/vectorstore/QueryPoints';
import type { RecommendBatchPoints__Output } from '../grpc/generated/vectorstore/RecommendBatchPoints';
import type { RecommendPointGroups__Output } from '../grpc/generated/vectorstore/RecommendPointGroups';
import type { RecommendPoints__Output } from '../grpc/generated/vectorstore/RecommendPoints';
import type { ScrollPoints__Output } from '../grpc/generated/vectorstore/ScrollPoints';
import type { SearchBatchPoints__Output } from '../grpc/generated/vectorstore/SearchBatchPoints';
import type { SearchMatrixPoints__Output } from '../grpc/generated/vectorstore/SearchMatrixPoints';
import type { SearchPointGroups__Output } from '../grpc/generated/vectorstore/SearchPointGroups';
import type { SearchPoints__Output } from '../grpc/generated/vectorstore/SearchPoints';
import type { SetPayloadPoints__Output } from '../grpc/generated/vectorstore/SetPayloadPoints';
import type { UpdateBatchPoints__Output } from '../grpc/generated/vectorstore/UpdateBatchPoints';
import type { UpdatePointVectors__Output } from '../grpc/generated/vectorstore/UpdatePointVectors';
import type { UpsertPoints__Output } from '../grpc/generated/vectorstore/UpsertPoints';
import * as map from './grpc';

type Response = object;

/**
 * `Points` service, at /vectorstore.Points/* and /qdrant.Points/*: map the request, call the points
 * services, map the answer. `time` is added by the timing interceptor.
 */
@Controller()
export class PointsGrpcController {
  constructor(
    private readonly writer: PointsWriter,
    private readonly reads: ReadRouter,
    private readonly vectorNames: VectorNameOperations,
  ) {}

  private async write(mapping: map.PointsWriteMapping): Promise<Response> {
    return map.pointsOperationResponseToProto(await this.writer.update(mapping.collectionName, mapping.request));
  }

  @Operation('Points/Upsert')
  @GrpcMethod('Points', 'Upsert')
  upsert(r: UpsertPoints__Output): Promise<Response> {
    return this.write(map.upsertPointsFromProto(r));
  }

  @Operation('Points/Delete')
  @GrpcMethod('Points', 'Delete')
  delete(r: DeletePoints__Output): Promise<Response> {
    return this.write(map.deletePointsFromProto(r));
  }

  @Operation('Points/UpdateVectors')
  @GrpcMethod('Points', 'UpdateVectors')
  updateVectors(r: UpdatePointVectors__Output): Promise<Response> {
    return this.write(map.updatePointVectorsFromProto(r));
  }

  @Operation('Points/DeleteVectors')
  @GrpcMethod('Points', 'DeleteVectors')
  deleteVectors(r: DeletePointVectors__Output): Promise<Response> {
    return this.write(map.deletePointVectorsFromProto(r));
  }

  @Operation('Points/SetPayload')
  @GrpcMethod('Points', 'SetPayload')
  setPayload(r: SetPayloadPoints__Output): Promise<Response> {
    return this.write(map.setPayloadFromProto(r));
  }

  @Operation('Points/OverwritePayload')
  @GrpcMethod('Points', 'OverwritePayload')
  overwritePayload(r: SetPayloadPoints__Output): Promise<Response> {
    return this.write(map.overwritePayloadFromProto(r));
  }

  @Operation('Points/DeletePayload')
  @GrpcMethod('Points', 'DeletePayload')
  deletePayload(r: DeletePayloadPoints__Output): Promise<Response> {
    return this.write(map.deletePayloadFromProto(r));
  }

  @Operation('Points/ClearPayload')
  @GrpcMethod('Points', 'ClearPayload')
  clearPayload(r: ClearPayloadPoints__Output): Promise<Response> {
    return this.write(map.clearPayloadFromProto(r));
  }

  @Operation('Points/CreateFieldIndex')
  @GrpcMethod('Points', 'CreateFieldIndex')
  createFieldIndex(r: CreateFieldIndexCollection__Output): Promise<Response> {
    return this.write(map.createFieldIndexFromProto(r));
  }

  @Operation('Points/DeleteFieldIndex')
  @GrpcMethod('Points', 'DeleteFieldIndex')
  deleteFieldIndex(r: DeleteFieldIndexCollection__Output): Promise<Response> {
    return this.write(map.deleteFieldIndexFromProto(r));
  }

  @Operation('Points/UpdateBatch')
  @GrpcMethod('Points', 'UpdateBatch')
  async updateBatch(r: UpdateBatchPoints__Output): Promise<Response> {
    const m = map.updateBatchFromProto(r);
    const results = await this.writer.updateBatch(m.collectionName, m.operations, {
      wait: m.wait,
      ordering: m.ordering,
      timeout: m.timeout,
      shardKeySelectors: m.shardKeySelectors,
    });
    return map.updateBatchResponseToProto(results);
  }

  @Operation('Points/Get')
  @GrpcMethod('Points', 'Get')
  async get(r: GetPoints__Output): Promise<Response> {
    const m = map.getPointsFromProto(r);
    return map.getResponseToProto(await this.reads.get(m.collectionName, m.request));
  }

  @Operation('Points/Scroll')
  @GrpcMethod('Points', 'Scroll')
  async scroll(r: ScrollPoints__Output): Promise<Response> {
    const m = map.scrollPointsFromProto(r);
    const page = await this.reads.scroll(m.collectionName, m.request);
    return map.scrollResponseToProto(page.points, page.nextPageOffset);
  }

  @Operation('Points/Count')
  @GrpcMethod('Points', 'Count')
  async count(r: CountPoints__Output): Promise<Response> {
    const m = map.countPointsFromProto(r);
    return map.countResponseToProto(await this.reads.count(m.collectionName, m.request));
  }

  @Operation('Points/Facet')
  @GrpcMethod('Points', 'Facet')
  async facet(r: FacetCounts__Output): Promise<Response> {
    const m = map.facetCountsFromProto(r);
    return map.facetResponseToProto(await this.reads.facet(m.collectionName, m.request));
  }

  @Operation('Points/Search')
  @GrpcMethod('Points', 'Search')
  async search(r: SearchPoints__Output): Promise<Response> {
    const m = map.searchPointsFromProto(r);
    return map.scoredPointsResponseToProto(await this.reads.search(m.collectionName, m.request));
  }

  @Operation('Points/SearchBatch')
  @GrpcMethod('Points', 'SearchBatch')
  async searchBatch(r: SearchBatchPoints__Output): Promise<Response> {
    const m = map.searchBatchFromProto(r);
    return map.batchResponseToProto(await this.reads.batch(m.collectionName, m.requests, this.reads.search));
  }

  @Operation('Points/Recommend')
  @GrpcMethod('Points', 'Recommend')
  async recommend(r: RecommendPoints__Output): Promise<Response> {
    const m = map.recommendPointsFromProto(r);
    return map.scoredPointsResponseToProto(await this.reads.recommend(m.collectionName, m.request));
  }

  @Operation('Points/RecommendBatch')
  @GrpcMethod('Points', 'RecommendBatch')
  async recommendBatch(r: RecommendBatchPoints__Output): Promise<Response> {
    const m = map.recommendBatchFromProto(r);
    return map.batchResponseToProto(await this.reads.batch(m.collectionName, m.requests, this.reads.recommend));
  }

  @Operation('Points/Query')
  @GrpcMethod('Points', 'Query')
  async query(r: QueryPoints__Output): Promise<Response> {
    const m = map.queryPointsFromProto(r);
    return map.scoredPointsResponseToProto(await this.reads.query(m.collectionName, m.request));
  }

  @Operation('Points/QueryBatch')
  @GrpcMethod('Points', 'QueryBatch')
  async queryBatch(r: QueryBatchPoints__Output): Promise<Response> {
    const m = map.queryBatchFromProto(r);
    return map.batchResponseToProto(await this.reads.batch(m.collectionName, m.requests, this.reads.query));
  }

  @Operation('Points/QueryGroups')
  @GrpcMethod('Points', 'QueryGroups')
  async queryGroups(r: QueryPointGroups__Output): Promise<Response> {
    const m = map.queryGroupsFromProto(r);
    return map.groupsResponseToProto(await this.reads.queryGroups(m.collectionName, m.request));
  }

  @Operation('Points/SearchGroups')
  @GrpcMethod('Points', 'SearchGroups')
  async searchGroups(r: SearchPointGroups__Output): Promise<Response> {
    const m = map.searchGroupsFromProto(r);
    return map.groupsResponseToProto(await this.reads.searchGroups(m.collectionName, m.request));
  }

  @Operation('Points/RecommendGroups')
  @GrpcMethod('Points', 'RecommendGroups')
  async recommendGroups(r: RecommendPointGroups__Output): Promise<Response> {
    const m = map.recommendGroupsFromProto(r);
    return map.groupsResponseToProto(await this.reads.recommendGroups(m.collectionName, m.request));
  }

  @Operation('Points/Discover')
  @GrpcMethod('Points', 'Discover')
  async discover(r: DiscoverPoints__Output): Promise<Response> {
    const m = map.discoverPointsFromProto(r);
    return map.scoredPointsResponseToProto(await this.reads.discover(m.collectionName, m.request));
  }

  @Operation('Points/DiscoverBatch')
  @GrpcMethod('Points', 'DiscoverBatch')
  async discoverBatch(r: DiscoverBatchPoints__Output): Promise<Response> {
    const m = map.discoverBatchFromProto(r);
    return map.batchResponseToProto(await this.reads.batch(m.collectionName, m.requests, this.reads.discover));
  }

  @Operation('Points/CreateVectorName')
  @GrpcMethod('Points', 'CreateVectorName')
  async createVectorName(r: CreateVectorNameRequest__Output): Promise<Response> {
    const m = map.createVectorNameFromProto(r);
    return map.vectorNameResponseToProto(await this.vectorNames.create(m.request, m.wait));
  }

  @Operation('Points/DeleteVectorName')
  @GrpcMethod('Points', 'DeleteVectorName')
  async deleteVectorName(r: DeleteVectorNameRequest__Output): Promise<Response> {
    const m = map.deleteVectorNameFromProto(r);
    return map.vectorNameResponseToProto(await this.vectorNames.delete(m.request, m.wait));
  }

  @Operation('Points/SearchMatrixPairs')
  @GrpcMethod('Points', 'SearchMatrixPairs')
  async searchMatrixPairs(r: SearchMatrixPoints__Output): Promise<Response> {
    const m = map.searchMatrixFromProto(r);
    return map.matrixPairsToProto(await this.reads.distanceMatrix(m.collectionName, m.request));
  }

  @Operation('Points/SearchMatrixOffsets')
  @GrpcMethod('Points', 'SearchMatrixOffsets')
  async searchMatrixOffsets(r: SearchMatrixPoints__Output): Promise<Response> {
    const m = map.searchMatrixFromProto(r);
    return map.matrixOffsetsToProto(await this.reads.distanceMatrix(m.collectionName, m.request));
  }
}
