import type { LogLine } from './change-file'

/** One record a write changed, as a store keeps it: its collection, its key there, and the record (null: removed). */
export type RecordRow = readonly [collection: string, key: string, record: object | null]

/** What one write changed, as the directory hands it to the store: its records, and its numbered events. */
export interface ChangeSet {
  readonly records: readonly RecordRow[]
  readonly events: readonly LogLine[]
}

/** A write as applied in memory: how to take it back, and what it changed. */
export interface Applied {
  readonly undo: (() => void)[]
  readonly changes: ChangeSet
}

/** Every record changed in memory since last asked, and how to carry them with the next write when refused. */
export type TakeChanges = () => { readonly records: readonly RecordRow[]; refused(): void }

/** A store's commit: applies a write in memory and resolves once its change set is durable (taken back and refused when it cannot be). */
export type StoreCommit = (apply: () => Applied) => Promise<void>

/** The keys of a collection's records as a snapshot lists them (the directory's own). */
export type RecordKeys = (collection: string, records: readonly object[]) => string[]
