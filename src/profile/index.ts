export { loadProfile, parseProfileText } from './load.ts';
export { ProfileError, formatProfileError, type ProfileIssue } from './issues.ts';
export { profileJsonSchema } from './json-schema.ts';
export type { Profile, ProfileSource } from './types.ts';
export type { ClientSpec, HotKey, MixEntry, Multiplier, Phase, Popularity, Slo } from './schema.ts';
export type { Distribution } from './distribution.ts';
