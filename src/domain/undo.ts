/** Takes back one in-memory change. */
export type Undo = () => void
