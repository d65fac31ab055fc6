import {
  Body,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Param,
  Post,
  Put,
  Query,
  Res,
  StreamableFile,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { Operation } from '@vectorstore/auth';
import { DomainError } from '@vectorstore/common';
import type { PartialSegmentManifest } from '@vectorstore/points';
import { SnapshotsService, type SnapshotDescription, type SnapshotPriority } from '@vectorstore/snapshots';
import type { Response } from 'express';
import { promises as fs } from 'node:fs';
import { RawRestResponse } from '../core/rest/rest-envelope';
import { pathFormatError } from '../core/rest/rest-format.error';
import { RestQuery } from '../core/rest/rest-query';
import { answerSnapshotWork, snapshotFile } from './rest/snapshot-answers';
import { readTextParam, recoverFromRest } from './rest/snapshots.rest-mapper';
import { UploadQueryInterceptor } from './rest/upload-query.interceptor';
import { HttpController } from '../core/rest/http-controller.decorator';
import { CollectionNameParam } from '../core/rest/collection-name.param';

/** `{shard_id}` of a path: a u32, else Qdrant's 400 for a path that does not deserialize. */
function shardIdOf(text: string): number {
  const id = /^\d{1,10}$/.test(text) ? Number(text) : NaN;
  if (!(id <= 0xffff_ffff)) throw pathFormatError('shard_id', `invalid digit found in string \`${text}\``);
  return id;
}

/**
 * Qdrant's shard snapshot routes (REST only, as in Qdrant). `?wait` defaults to true; `wait=false`
 * answers 202 at once. On this single node a shard snapshot holds one local shard; restoring one
 * replaces that shard's data and keeps the collection's config.
 */
@HttpController('collections/:collection_name/shards/:shard_id')
export class ShardSnapshotsHttpController {
  constructor(private readonly snapshots: SnapshotsService) {}

  @Operation('Snapshots/CreateShard')
  @RawRestResponse()
  @HttpCode(HttpStatus.OK)
  @Post('snapshots')
  create(
    @CollectionNameParam() name: string,
    @Param('shard_id') shard: string,
    @Query() query: RestQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    const shardId = shardIdOf(shard);
    return answerSnapshotWork(query, response, () => this.snapshots.createShard(name, shardId));
  }

  @Operation('Snapshots/ListShard')
  @Get('snapshots')
  list(@CollectionNameParam() name: string, @Param('shard_id') shard: string): Promise<SnapshotDescription[]> {
    return this.snapshots.listShard(name, shardIdOf(shard));
  }

  @Operation('Snapshots/RecoverShard')
  @RawRestResponse()
  @Put('snapshots/recover')
  recover(
    @CollectionNameParam() name: string,
    @Param('shard_id') shard: string,
    @Body() body: unknown,
    @Query() query: RestQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    const shardId = shardIdOf(shard);
    const request = { ...recoverFromRest(name, body), shardId };
    return answerSnapshotWork(query, response, async () => {
      await this.snapshots.recoverShard(request);
      return true;
    });
  }

  @Operation('Snapshots/UploadShard')
  @RawRestResponse()
  @HttpCode(HttpStatus.OK)
  @Post('snapshots/upload')
  @UseInterceptors(UploadQueryInterceptor, FileInterceptor('snapshot'))
  upload(
    @CollectionNameParam() name: string,
    @Param('shard_id') shard: string,
    @UploadedFile() file: { path: string } | undefined,
    @Query() query: RestQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    return this.restoreUpload(name, shard, file, query, response);
  }

  @Operation('Snapshots/DownloadShard')
  @RawRestResponse()
  @Get('snapshots/:snapshot_name')
  async download(
    @CollectionNameParam() name: string,
    @Param('shard_id') shard: string,
    @Param('snapshot_name') snapshot: string,
  ): Promise<StreamableFile> {
    return snapshotFile(await this.snapshots.downloadShard(name, shardIdOf(shard), snapshot));
  }

  @Operation('Snapshots/DeleteShard')
  @RawRestResponse()
  @Delete('snapshots/:snapshot_name')
  delete(
    @CollectionNameParam() name: string,
    @Param('shard_id') shard: string,
    @Param('snapshot_name') snapshot: string,
    @Query() query: RestQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    const shardId = shardIdOf(shard);
    return answerSnapshotWork(query, response, async () => {
      await this.snapshots.deleteShard(name, shardId, snapshot);
      return true;
    });
  }

  /** Qdrant's partial snapshot manifest: what each segment of the shard holds, by op number. */
  @Operation('Snapshots/PartialManifest')
  @Get('snapshot/partial/manifest')
  partialManifest(
    @CollectionNameParam() name: string,
    @Param('shard_id') shard: string,
  ): Record<string, PartialSegmentManifest> {
    return this.snapshots.partialManifest(name, shardIdOf(shard));
  }

  /**
   * A partial snapshot for the manifest in the body. We always send the whole shard (a superset of
   * any partial snapshot), streamed like a download; see docs/snapshots.md.
   */
  @Operation('Snapshots/PartialCreate')
  @RawRestResponse()
  @HttpCode(HttpStatus.OK)
  @Post('snapshot/partial/create')
  async partialCreate(@CollectionNameParam() name: string, @Param('shard_id') shard: string): Promise<StreamableFile> {
    const shardId = shardIdOf(shard);
    const created = await this.snapshots.createShard(name, shardId);
    const opened = await this.snapshots.downloadShard(name, shardId, created.name);
    // The archive was made for this answer only: it goes once the stream has it open.
    await this.snapshots.deleteShard(name, shardId, created.name);
    return snapshotFile(opened);
  }

  /** Recovers from an uploaded partial snapshot: ours are whole shard snapshots, restored as such. */
  @Operation('Snapshots/PartialRecover')
  @RawRestResponse()
  @HttpCode(HttpStatus.OK)
  @Post('snapshot/partial/recover')
  @UseInterceptors(UploadQueryInterceptor, FileInterceptor('snapshot'))
  partialRecover(
    @CollectionNameParam() name: string,
    @Param('shard_id') shard: string,
    @UploadedFile() file: { path: string } | undefined,
    @Query() query: RestQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    return this.restoreUpload(name, shard, file, query, response);
  }

  private async restoreUpload(
    name: string,
    shard: string,
    file: { path: string } | undefined,
    query: RestQuery,
    response: Response,
  ): Promise<string> {
    const remove = (): Promise<void> => fs.rm(file?.path ?? '', { force: true });
    let shardId: number;
    try {
      if (file === undefined) throw DomainError.invalidArgument('Bad request: the form has no `snapshot` file');
      shardId = shardIdOf(shard);
    } catch (error) {
      if (file !== undefined) await remove();
      throw error;
    }
    const checksum = readTextParam(query, 'checksum');
    const priority = readTextParam(query, 'priority') as SnapshotPriority | undefined;
    return answerSnapshotWork(query, response, async () => {
      try {
        await this.snapshots.restoreShardArchive(name, shardId, file.path, checksum, false, priority);
      } finally {
        await remove();
      }
      return true;
    });
  }
}
