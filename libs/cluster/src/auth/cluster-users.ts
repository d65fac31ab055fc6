import { ClusterConfig } from '@vectorstore/config';
import { ClusterKeys } from '../cluster-keys';
import { EtcdMetadataStore } from '../metadata/etcd-metadata-store';
import { EtcdUserStore } from './etcd-user-store';

/**
 * The cluster's users for a tool run with a peer's environment (`npm run user` in cluster mode): a connection to
 * etcd and the users store over it, without joining the cluster. Changes are guarded writes, as a peer's are.
 */
export async function openClusterUsers(
  config: ClusterConfig,
): Promise<{ users: EtcdUserStore; close(): Promise<void> }> {
  const store = await EtcdMetadataStore.connect(config.etcd);
  const users = new EtcdUserStore(store, new ClusterKeys(config.name));
  try {
    await users.load();
  } catch (error) {
    await store.close();
    throw error;
  }
  return {
    users,
    close: async () => {
      await users.close();
      await store.close();
    },
  };
}
