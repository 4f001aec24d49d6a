import type { StoredSnapshot } from './model/snapshot'
import { snapshotProblem, upgradeSnapshot } from './domain/snapshot-format'
import { IN_MEMORY, Store } from './store/store'

/**
 * The service's data file: the store over snapshots of the club directory, in the current
 * format. A file an older release wrote is upgraded in memory (the next write saves it whole in
 * the new format) and first kept beside it as `<file>.v<N>.bak`, the way back to that release.
 */
export async function openDataFile(
  dataFile: string,
  seedFile: string,
  options: { fromSeed?: boolean; readOnly?: boolean } = {},
) {
  const opened = await Store.open<StoredSnapshot>(dataFile, seedFile, snapshotProblem, options)
  const data = upgradeSnapshot(opened.data)
  const upgradedFrom =
    data === opened.data
      ? null
      : {
          version: opened.data.version,
          copy:
            opened.source === 'file' && dataFile !== IN_MEMORY && !options.readOnly
              ? await opened.store.keepCopy(`.v${opened.data.version}.bak`)
              : null,
        }
  return { ...opened, data, upgradedFrom }
}

export type DataFile = Awaited<ReturnType<typeof openDataFile>>['store']
