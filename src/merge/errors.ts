/** Folders that are not the disjoint, complete segments of one run (different profiles, seeds, a segment missing or twice): bad input. */
export class SegmentMergeError extends Error {
  override readonly name = 'SegmentMergeError';
}
