import { type FileBound, MiB } from '../files/input-file.ts';

/*
 * How big the files a profile names may be. A profile or a topology is YAML a person wrote: a
 * megabyte is a long one, 16 MiB leaves room for empirical distributions pasted in. A key file is a
 * production sample, read a row at a time but kept whole as its keys: tens of millions of keys.
 */
export const PROFILE_FILE: FileBound = { what: 'a profile', maxBytes: 16 * MiB };
export const TOPOLOGY_FILE: FileBound = { what: 'a topology', maxBytes: 16 * MiB };
export const KEY_FILE: FileBound = { what: 'a key file', maxBytes: 1024 * MiB };
/** The longest row of a key file: a key (and its weight). */
export const KEY_FILE_ROW_MAX = 64 * 1024;
