/** A node in a client view: live, held dead (marked down), or back from a mark-down just now. */
export const VIEW_LIVE = 0;
export const VIEW_DEAD = 1;
export const VIEW_BACK = 2;
export type NodeView = typeof VIEW_LIVE | typeof VIEW_DEAD | typeof VIEW_BACK;
