import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  discardShardFolder,
  dropReplaced,
  settleShardReplacement,
  shardFolders,
  stageReplacement,
  swapInReplacement,
  undoReplacement,
} from './shard-replacement';

describe('shard replacement (the rename journal of a shard restore)', () => {
  let root: string;
  let shard: string;

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'vs-shard-replace-'));
    shard = path.join(root, 'shards', '0');
    fs.mkdirSync(shard, { recursive: true });
    fs.writeFileSync(path.join(shard, 'data'), 'old');
    fs.mkdirSync(path.join(root, 'staging'));
    fs.writeFileSync(path.join(root, 'staging', 'data'), 'new');
  });

  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const shardsListing = (): string[] => fs.readdirSync(path.join(root, 'shards')).sort();
  const content = (): string => fs.readFileSync(path.join(shard, 'data'), 'utf8');

  it('should replace the folder in three steps, leaving only the new one', async () => {
    const folders = shardFolders(shard);
    await stageReplacement(folders, path.join(root, 'staging'));
    expect(shardsListing()).toEqual(['0', '0.restored']);
    await swapInReplacement(folders);
    expect(shardsListing()).toEqual(['0', '0.replaced']);
    await dropReplaced(folders);
    expect(shardsListing()).toEqual(['0']);
    expect(content()).toBe('new');
  });

  it('should keep the old shard when a crash came before it was moved aside', async () => {
    await stageReplacement(shardFolders(shard), path.join(root, 'staging'));

    expect(await settleShardReplacement(shard)).toMatch(/removed what an interrupted or finished restore left/);

    expect(shardsListing()).toEqual(['0']);
    expect(content()).toBe('old');
  });

  it('should finish the swap when a crash came between its two renames', async () => {
    const folders = shardFolders(shard);
    await stageReplacement(folders, path.join(root, 'staging'));
    fs.renameSync(shard, folders.replaced); // the first rename of the swap, then the crash

    expect(await settleShardReplacement(shard)).toMatch(/finished replacing shard folder/);

    expect(shardsListing()).toEqual(['0']);
    expect(content()).toBe('new');
  });

  it('should remove the old folder when a crash came after the swap', async () => {
    const folders = shardFolders(shard);
    await stageReplacement(folders, path.join(root, 'staging'));
    await swapInReplacement(folders);

    await settleShardReplacement(shard);

    expect(shardsListing()).toEqual(['0']);
    expect(content()).toBe('new');
  });

  it('should put the old folder back when undoing was interrupted, and undo in full otherwise', async () => {
    const folders = shardFolders(shard);
    await stageReplacement(folders, path.join(root, 'staging'));
    await swapInReplacement(folders);
    fs.renameSync(shard, folders.discarded); // the undo's first rename, then the crash

    expect(await settleShardReplacement(shard)).toMatch(/put back shard folder/);
    expect(shardsListing()).toEqual(['0']);
    expect(content()).toBe('old');

    fs.mkdirSync(path.join(root, 'staging'));
    fs.writeFileSync(path.join(root, 'staging', 'data'), 'new');
    await stageReplacement(folders, path.join(root, 'staging'));
    await swapInReplacement(folders);
    await undoReplacement(folders);
    expect(shardsListing()).toEqual(['0']);
    expect(content()).toBe('old');
  });

  it('should never put back a folder an earlier replacement left aside', async () => {
    const folders = shardFolders(shard);
    fs.mkdirSync(folders.replaced); // an earlier restore's old folder, whose removal failed
    fs.writeFileSync(path.join(folders.replaced, 'data'), 'older');
    await stageReplacement(folders, path.join(root, 'staging'));
    expect(shardsListing()).toEqual(['0', '0.restored']);
    await swapInReplacement(folders);
    await undoReplacement(folders); // the new folder failed to open

    expect(shardsListing()).toEqual(['0']);
    expect(content()).toBe('old');
  });

  it('should leave no shard in part when a discard is cut: the start removes the discarded folder', async () => {
    const folders = shardFolders(shard);
    fs.renameSync(shard, folders.discarded); // the discard's rename, then the crash (its removal never ran)
    fs.rmSync(path.join(folders.discarded, 'data'));

    expect(await settleShardReplacement(shard)).toMatch(/removed what/);
    expect(shardsListing()).toEqual([]);

    fs.mkdirSync(shard);
    await discardShardFolder(shard);
    expect(shardsListing()).toEqual([]);
  });

  it('should do nothing for a shard no restore touched', async () => {
    expect(await settleShardReplacement(shard)).toBeUndefined();
    expect(shardsListing()).toEqual(['0']);
  });
});
