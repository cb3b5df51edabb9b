/* HTTP/2's wire numbers (RFC 9113 §6, §7), in one place for the frame writer and the session that reads. */

/** Frame types. */
export const DATA = 0;
export const HEADERS = 1;
export const RST_STREAM = 3;
export const SETTINGS = 4;
export const PUSH_PROMISE = 5;
export const PING = 6;
export const GOAWAY = 7;
export const WINDOW_UPDATE = 8;
export const CONTINUATION = 9;

/** Frame flags (END_STREAM and ACK share a bit, on different frame types). */
export const FLAG_END_STREAM = 0x1;
export const FLAG_ACK = 0x1;
export const FLAG_END_HEADERS = 0x4;
export const FLAG_PADDED = 0x8;
export const FLAG_PRIORITY = 0x20;

/** Settings identifiers. */
export const SETTINGS_HEADER_TABLE_SIZE = 0x1;
export const SETTINGS_ENABLE_PUSH = 0x2;
export const SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
export const SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
export const SETTINGS_MAX_FRAME_SIZE = 0x5;

/** Error codes. */
export const NO_ERROR = 0x0;
export const PROTOCOL_ERROR = 0x1;
export const CANCEL = 0x8;
export const COMPRESSION_ERROR = 0x9;
