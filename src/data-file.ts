import type { Snapshot } from './model/snapshot'
import { snapshotProblem } from './domain/snapshot-check'
import { Store } from './store/store'

/** The service's data file: the store, over snapshots of the club directory. */
export const openDataFile = (dataFile: string, seedFile: string) =>
  Store.open<Snapshot>(dataFile, seedFile, snapshotProblem)

export type DataFile = Store<Snapshot>
